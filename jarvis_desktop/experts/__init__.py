"""Expert models that run plan tasks: the runner interface, the registry, the catalog, the cache.

- ``base``, ``registry``: the backend protocol, results, and which backend runs a (task, model)
- ``defaults.build_registry``: every backend this machine offers, local first, hosted, controller
- ``shipped``: OCR, spaCy NER and MiniLM similarity from weights inside Python packages
- ``speech``: faster-whisper and piper/espeak-ng (with the ``voice`` package)
- ``transformers_backend`` (+ ``text_tasks``, ``vision_tasks``, ``audio_tasks``): cached transformers models
- ``control``: ControlNet control maps; ``diffusers_backend``: image, video and ControlNet generation
- ``audio_dsp``: built-in noise reduction; ``controller_backend``: text tasks answered by the LLM
- ``hosted``: InferenceClient fallback; ``model_cache``: warm models within a memory budget
- ``local_cache``: reading the Hugging Face cache layout; ``model_store``: pull, list, remove, defaults
"""

"""Transformers models from the local cache, for the text, vision and audio task types.

Each (model, loading style, device) is loaded once into the shared model cache and stays warm.
Models are loaded from their snapshot folder, so nothing ever reaches the network here, whatever
``HF_HUB_OFFLINE`` says. Where transformers 5 still has a pipeline for the task it is used;
for the tasks it dropped (summarization, translation, text2text, extractive QA, VQA) the model
is driven directly.
"""

from __future__ import annotations

from typing import Any

from .base import ExpertError, RunContext, TaskOutput
from .cached import CachedModelsBackend
from .devices import torch_dtype
from .local_cache import ModelInfo

TEXT_TASKS = frozenset({"text-classification", "token-classification", "question-answering", "text2text-generation",
                        "summarization", "translation", "conversational", "text-generation", "sentence-similarity"})
VISION_TASKS = frozenset({"image-classification", "object-detection", "image-segmentation", "depth-estimation",
                          "image-to-text", "visual-question-answering", "document-question-answering"})
AUDIO_TASKS = frozenset({"automatic-speech-recognition", "audio-classification", "text-to-speech"})
#: tasks a general text generator can do by being asked in words
GENERATIVE_TEXT = frozenset({"text2text-generation", "summarization", "translation", "question-answering",
                             "conversational", "text-generation"})

#: task -> transformers pipeline name, where transformers 5 has one
PIPELINES = {
    "text-classification": "text-classification",
    "token-classification": "token-classification",
    "image-classification": "image-classification",
    "object-detection": "object-detection",
    "image-segmentation": "image-segmentation",
    "depth-estimation": "depth-estimation",
    "document-question-answering": "document-question-answering",
    "automatic-speech-recognition": "automatic-speech-recognition",
    "audio-classification": "audio-classification",
    "text-to-speech": "text-to-audio",
}


def model_class(info: ModelInfo, fallback: str):
    """The class named in config.json's architectures (exact), else an Auto class."""
    import transformers

    cls = getattr(transformers, info.architecture, None) if info.architecture else None
    return cls if cls is not None and hasattr(cls, "from_pretrained") else getattr(transformers, fallback)


class TransformersBackend(CachedModelsBackend):
    """Runs transformers models found in the model cache."""

    name = "transformers"
    families = ("transformers",)
    TASKS = TEXT_TASKS | VISION_TASKS | AUDIO_TASKS | frozenset({"openpose-control"})
    HALF_OK = frozenset(GENERATIVE_TEXT | {"image-to-text", "visual-question-answering", "text-to-speech"})

    def __init__(self, settings: Any, cache=None, detection_threshold: float = 0.5, max_new_tokens: int = 200):
        super().__init__(settings, cache)
        self.detection_threshold = detection_threshold
        self.max_new_tokens = max_new_tokens

    def serves(self, info: ModelInfo, task: str) -> bool:
        if task in info.tasks:
            return True
        return task in GENERATIVE_TEXT and bool({"text-generation", "text2text-generation"} & set(info.tasks))

    # --- loading -------------------------------------------------------------------------
    def dtype(self, task: str, info: ModelInfo, device: str):
        import json

        try:
            cfg = json.loads((info.path / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            cfg = {}
        saved = str(cfg.get("torch_dtype") or cfg.get("dtype") or "")
        return torch_dtype(device, task in self.HALF_OK, saved)

    def pipeline(self, task: str, info: ModelInfo, device: str):
        """A context manager yielding the cached transformers pipeline for ``task``."""
        name = PIPELINES[task]

        def load():
            from transformers import pipeline

            return pipeline(name, model=str(info.path), device=device, dtype=self.dtype(task, info, device))

        return self.loaded(task, info, f"pipe-{name}", load, device)

    def model_and_processor(self, task: str, info: ModelInfo, device: str, auto: str, processor: str = "tokenizer"):
        """A context manager yielding (model, tokenizer or processor) loaded directly."""

        def load():
            import transformers

            cls = model_class(info, auto)
            model = cls.from_pretrained(str(info.path), dtype=self.dtype(task, info, device)).to(device).eval()
            if processor == "tokenizer":
                proc = transformers.AutoTokenizer.from_pretrained(str(info.path))
            else:
                proc = load_processor(str(info.path))
            return model, proc

        return self.loaded(task, info, f"{auto}-{processor}", load, device)

    # --- running -------------------------------------------------------------------------
    def _run(self, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        device = self.device
        if task in TEXT_TASKS:
            from . import text_tasks

            return text_tasks.run(self, task, info, args, ctx, device)
        if task in VISION_TASKS or task == "openpose-control":
            from . import vision_tasks

            return vision_tasks.run(self, task, info, args, ctx, device)
        if task in AUDIO_TASKS:
            from . import audio_tasks

            return audio_tasks.run(self, task, info, args, ctx, device)
        raise ExpertError(f"{task}: not a task the transformers backend runs")


def load_processor(path: str):
    """AutoProcessor, or an image processor + tokenizer pair for models saved without one."""
    import transformers

    try:
        proc = transformers.AutoProcessor.from_pretrained(path)
    except (OSError, ValueError, KeyError, TypeError):
        proc = None
    if proc is not None and hasattr(proc, "tokenizer") and (hasattr(proc, "image_processor") or hasattr(proc, "feature_extractor")):
        return proc
    image_processor = transformers.AutoImageProcessor.from_pretrained(path)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    except (OSError, ValueError, KeyError, TypeError):
        tokenizer = None
    return _Pair(image_processor, tokenizer)


class _Pair:
    """An image processor and a tokenizer used together like a processor."""

    def __init__(self, image_processor, tokenizer):
        self.image_processor, self.tokenizer = image_processor, tokenizer

    def __call__(self, images=None, text=None, return_tensors="pt", **kw):
        out = {}
        if images is not None:
            out.update(self.image_processor(images=images, return_tensors=return_tensors))
        if text is not None and self.tokenizer is not None:
            out.update(self.tokenizer(text, return_tensors=return_tensors, **kw))
        from transformers import BatchFeature

        return BatchFeature(out)

    def batch_decode(self, *a, **kw):
        return self.tokenizer.batch_decode(*a, **kw)

    def decode(self, *a, **kw):
        return self.tokenizer.decode(*a, **kw)

"""The local REST server (``jarvis serve``): the assistant for other programs, on 127.0.0.1.

Endpoints (all JSON; errors are ``{"error": {"message", "type", "code"}, "detail"}``):

- ``POST /v1/plan``  ``{"request", "files"}`` -> the validated plan in HuggingGPT's JSON form
- ``POST /v1/run``   ``{"request", "files", "session_id"?, "stream"?}`` -> plan, models, results
- ``POST /v1/ask``   same body -> also the answer; ``"stream": true`` sends every pipeline event as
  server-sent events (``event: PlanReady`` ...) and ends with ``event: result``
- ``GET /v1/sessions`` (``?q=`` full-text search, ``?limit=``), ``GET /v1/sessions/{id}``
- ``GET /v1/outputs/<session>/<request>/<file>``: only files that session produced
- ``POST /v1/chat/completions`` (and ``GET /v1/models``): OpenAI-compatible, ``stream`` included

Files: multipart uploads (field ``files``), inline ``{"name", "content_base64"}`` objects, or (on a
loopback server only) paths on this machine. Bodies over ``--max-upload-mb`` get 413.
Access: ``--token`` / ``JARVIS_SERVER_TOKEN`` requires ``Authorization: Bearer``; a loopback
server without a token refuses foreign ``Host`` headers and requests from web pages (``Origin``).

FastAPI and uvicorn are optional (the ``server`` extra); nothing here is imported by the core.
"""

"""The local REST server (``jarvis serve``): the assistant for other programs, on 127.0.0.1.

FastAPI and uvicorn are optional (the ``server`` extra); nothing here is imported by the core.
"""

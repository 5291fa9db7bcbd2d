"""PyInstaller runtime hook: models stay out of the bundle, so a ``model_cache/`` folder placed beside
the ``jarvis`` executable is used when the user has not chosen one (JARVIS_MODEL_CACHE)."""

import os
import sys
from pathlib import Path

_beside = Path(sys.executable).resolve().parent / "model_cache"
if not os.environ.get("JARVIS_MODEL_CACHE") and _beside.is_dir():
    os.environ["JARVIS_MODEL_CACHE"] = str(_beside)

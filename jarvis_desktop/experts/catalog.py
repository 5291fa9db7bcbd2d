"""The model catalog: which Hugging Face models exist for each task type, with their facts.

The shipped catalog (``resources/catalog/models.jsonl``) works offline; ``refresh_catalog`` rebuilds
it from the Hub into the user's data folder, where it then takes precedence.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..config import Settings, resources_dir
from ..task_types import TASK_TYPES

log = logging.getLogger(__name__)


@dataclass
class CatalogModel:
    id: str
    task: str
    downloads: int = 0
    likes: int = 0
    tags: list[str] = field(default_factory=list)
    license: str | None = None
    description: str = ""


class Catalog:
    def __init__(self, models: list[CatalogModel], source: Path | None = None):
        self.models = models
        self.source = source
        self._by_task: dict[str, list[CatalogModel]] = {}
        for m in models:
            self._by_task.setdefault(m.task, []).append(m)
        for ms in self._by_task.values():
            ms.sort(key=lambda m: (-m.downloads, -m.likes, m.id))

    def for_task(self, task: str) -> list[CatalogModel]:
        """Models for ``task``, most downloaded first."""
        return list(self._by_task.get(task, []))

    def get(self, model_id: str, task: str | None = None) -> CatalogModel | None:
        for m in self.models:
            if m.id == model_id and (task is None or m.task == task):
                return m
        return None

    def tasks_of(self, model_id: str) -> list[str]:
        return sorted({m.task for m in self.models if m.id == model_id})

    def __len__(self) -> int:
        return len(self.models)

    @classmethod
    def load(cls, path: Path) -> Catalog:
        models = []
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                    models.append(
                        CatalogModel(
                            id=str(d["id"]),
                            task=str(d["task"]),
                            downloads=int(d.get("downloads") or 0),
                            likes=int(d.get("likes") or 0),
                            tags=list(d.get("tags") or []),
                            license=d.get("license"),
                            description=str(d.get("description") or ""),
                        )
                    )
                except (ValueError, KeyError, TypeError):
                    log.warning("%s:%d: skipped a malformed catalog line", path, n)
        return cls(models, path)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for m in self.models:
                f.write(json.dumps(asdict(m), ensure_ascii=False) + "\n")
        tmp.replace(path)


def shipped_catalog_path() -> Path:
    return resources_dir() / "catalog" / "models.jsonl"


def user_catalog_path(settings: Settings) -> Path:
    return settings.data_path / "catalog.jsonl"


def load_catalog(settings: Settings) -> Catalog:
    """The refreshed catalog when the user has one, else the shipped one."""
    user = user_catalog_path(settings)
    if user.is_file():
        return Catalog.load(user)
    return Catalog.load(shipped_catalog_path())


def refresh_catalog(settings: Settings, per_task: int = 30, with_cards: bool = True, progress=None) -> Catalog:
    """Rebuild the catalog from the Hub (online only): top models per task with a card summary.

    The shipped ControlNet entries are kept, since the Hub has no pipeline tag for them.
    """
    if settings.offline:
        raise RuntimeError("Offline mode is on: turn it off (JARVIS_OFFLINE=0) to refresh the catalog from the Hub.")
    from huggingface_hub import HfApi

    from .hub_errors import explain, probe

    unreachable = probe()
    if unreachable is not None:
        raise RuntimeError(explain(unreachable, action="refresh the model catalog")) from None
    api = HfApi(token=settings.hf_token or None)
    models: list[CatalogModel] = []
    hub_tasks = sorted(t for t in TASK_TYPES if "control" not in t)
    for i, task in enumerate(hub_tasks):
        if progress:
            progress(i, len(hub_tasks), task)
        try:
            found = list(api.list_models(pipeline_tag=task, sort="downloads", limit=per_task, cardData=True))
        except Exception as e:
            raise RuntimeError(explain(e, action="refresh the model catalog")) from None
        for info in found:
            card = getattr(info, "card_data", None) or {}
            license_ = card.get("license") if hasattr(card, "get") else None
            desc = _card_summary(api, info.id) if with_cards else ""
            models.append(
                CatalogModel(
                    id=info.id,
                    task=task,
                    downloads=int(getattr(info, "downloads", 0) or 0),
                    likes=int(getattr(info, "likes", 0) or 0),
                    tags=[t for t in (getattr(info, "tags", None) or []) if ":" not in t][:12],
                    license=license_ if isinstance(license_, str) else None,
                    description=desc,
                )
            )
    shipped = Catalog.load(shipped_catalog_path())
    models += [m for m in shipped.models if "control" in m.task]
    catalog = Catalog(models, user_catalog_path(settings))
    catalog.save(user_catalog_path(settings))
    return catalog


def _card_summary(api, model_id: str, limit: int = 300) -> str:
    """The first prose paragraph of a model card (headings, badges and front matter skipped)."""
    try:
        from huggingface_hub import ModelCard

        text = ModelCard.load(model_id, token=api.token).text
    except Exception:
        return ""
    for para in text.split("\n\n"):
        p = para.strip()
        if p and not p.startswith(("#", "!", "[", "<", "|", "-", "```")):
            return " ".join(p.split())[:limit]
    return ""

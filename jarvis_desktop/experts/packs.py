"""First-run packs: curated groups of default models by what a person wants to do.

The packs live in ``resources/experts/packs.json``; each names task types whose curated defaults
(``defaults.json``) it pulls, plus optional extra models. Offline, setup explains the route over the
air gap (export on a connected computer, import here) instead of failing on the network.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..config import Settings, resources_dir
from .hub_errors import explain, probe
from .model_store import DefaultModel, PullPlan, cached_ids, plan_defaults


@dataclass(frozen=True)
class Pack:
    id: str
    title: str
    summary: str
    tasks: tuple[str, ...]
    extra: tuple[DefaultModel, ...] = field(default_factory=tuple)


@lru_cache(maxsize=1)
def load_packs() -> list[Pack]:
    data = json.loads((resources_dir() / "experts" / "packs.json").read_text(encoding="utf-8"))
    out = []
    for p in data["packs"]:
        extra = tuple(DefaultModel(e["task"], e["model"], e.get("license", ""), float(e.get("size_mb", 0)),
                                   variant=e.get("variant", "")) for e in p.get("extra", []))
        out.append(Pack(p["id"], p["title"], p["summary"], tuple(p["tasks"]), extra))
    return out


def pack_plan(pack: Pack, settings: Settings, cached: set[str] | None = None) -> PullPlan:
    """What choosing ``pack`` would download now (cached, shipped and built-in models skipped).
    ``cached``: the cache's model ids, listed once for several packs."""
    cached = cached_ids(settings) if cached is None else cached
    plan = plan_defaults(list(pack.tasks), settings, cached=cached)
    have = {m.model_id for m in plan.models}
    plan.models += [e for e in pack.extra if e.model_id not in cached and e.model_id not in have]
    return plan


def disk_free(settings: Settings) -> int:
    """Free bytes on the disk that holds the model cache (its nearest existing folder)."""
    p: Path = settings.model_cache_path
    while not p.exists() and p != p.parent:
        p = p.parent
    return shutil.disk_usage(p).free


def export_command(packs: list[Pack]) -> str:
    """The command that writes these packs' models to a stick on a connected computer."""
    tasks = [t for p in packs for t in p.tasks] + [e.model_id for p in packs for e in p.extra if e.model_id]
    return "jarvis models export DIR " + " ".join(dict.fromkeys(tasks))


def offline_route(packs: list[Pack] | None = None) -> str:
    packs = packs or load_packs()
    return ("To bring models over without network: on a computer that has it, run "
            f"`jarvis models setup {' '.join(p.id for p in packs)}` (or `jarvis models pull MODEL`), then "
            f"`{export_command(packs)}` with DIR a USB stick; here, run `jarvis models import DIR` "
            "(or Settings > Models > Import). A plain Hugging Face cache folder or an `hf download --local-dir` "
            "folder can be imported the same way.")


def setup_reachability(settings: Settings, endpoint: str | None = None) -> str:
    """"" when downloads can start; else why not and the export/import route."""
    if settings.offline:
        return "Offline mode is on, so nothing is downloaded. " + offline_route()
    err = probe(endpoint)
    if err is not None:
        return explain(err, action="reach the Hugging Face Hub", with_route=False) + " " + offline_route()
    return ""


@dataclass
class PackDownload:
    """How one model of a setup run ended: ``error`` is "" when it is ready."""

    model_id: str
    error: str = ""
    cancelled: bool = False


def download(models: list[DefaultModel], settings: Settings, on_progress=None, cancel=None,
             endpoint: str | None = None) -> list[PackDownload]:
    """Pull each model in turn (checksums verified by :func:`model_store.pull`); one failure does not
    stop the rest, a cancel does. ``on_progress`` receives each model's DownloadProgress."""
    from .base import ExpertError
    from .model_store import DownloadCancelled, pull

    out = []
    for m in models:
        if cancel is not None and cancel.cancelled:
            out.append(PackDownload(m.model_id, "cancelled", cancelled=True))
            continue
        try:
            pull(m.model_id, settings, variant=m.variant, endpoint=endpoint, on_progress=on_progress, cancel=cancel)
            out.append(PackDownload(m.model_id))
        except DownloadCancelled as e:
            out.append(PackDownload(m.model_id, str(e), cancelled=True))
        except ExpertError as e:
            out.append(PackDownload(m.model_id, str(e)))
    return out

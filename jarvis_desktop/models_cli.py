"""``jarvis models export|import|setup``: moving models across an air gap and the first-run packs.

Progress bars (one per download or copy, with size and speed) go to stderr through rich; results
go to stdout. Every failure is one line on stderr and exit status 1, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Any


def _bar_columns():
    from rich.progress import (BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn,
                               TransferSpeedColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                    TimeRemainingColumn(), transient=False, console=_err())


def _err():
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr)


def cmd_export(args, settings) -> int:
    from .experts.transfer import export_models

    if not args.model:
        _say("jarvis: give a folder, e.g. jarvis models export /media/usb image-to-text (or model ids; none: all cached)")
        return 2
    dest, names = args.model[0], args.model[1:]
    with _bar_columns() as bars:
        task = bars.add_task("export", total=None)

        def show(p):
            bars.update(task, completed=p.done_bytes, total=p.total_bytes or None)

        result = export_models(dest, settings, names or None, on_progress=show)
    for m in result.models:
        print(f"exported {m.repo_id} ({m.size_bytes / 1e6:.1f} MB, {len(m.files)} files, revision {m.revision[:12]})")
    for line in result.skipped:
        _say(f"skipped: {line}")
    mbps = result.bytes / 1e6 / result.seconds if result.seconds else 0.0
    print(f"{len(result.models)} model(s), {result.bytes / 1e6:.1f} MB in {result.seconds:.1f} s ({mbps:.0f} MB/s) "
          f"-> {result.folder}. On the other computer: jarvis models import {result.folder}")
    return 0


def cmd_import(args, settings) -> int:
    from .experts.transfer import import_models

    if len(args.model) != 1:
        _say("jarvis: give one folder, e.g. jarvis models import /media/usb")
        return 2
    with _bar_columns() as bars:
        task = bars.add_task("verify and import", total=None)

        def show(p):
            bars.update(task, completed=p.done_bytes, total=p.total_bytes or None)

        result = import_models(args.model[0], settings, repo_id=getattr(args, "repo_id", None), on_progress=show)
    for mid in result.installed:
        print(f"imported {mid}")
    for mid in result.already:
        print(f"already here: {mid}")
    for line in result.failed:
        _say(f"refused: {line}")
    checked = f"{result.verified_files} file(s) verified by checksum"
    if result.unverified_files:
        checked += f", {result.unverified_files} with no checksum to compare (size only)"
    mbps = result.bytes / 1e6 / result.seconds if result.seconds else 0.0
    print(f"{len(result.installed)} model(s) imported from a {result.source_kind} folder, {result.bytes / 1e6:.1f} MB "
          f"in {result.seconds:.1f} s ({mbps:.0f} MB/s); {checked} -> {settings.model_cache_path}")
    return 1 if result.failed and not result.installed else 0


def cmd_setup(args, settings) -> int:
    """Offer the packs by need, with sizes and free disk space; download the chosen ones."""
    from .cancel import CancelToken
    from .experts.model_store import cached_ids
    from .experts.packs import disk_free, load_packs, pack_plan, setup_reachability

    packs = load_packs()
    cached = cached_ids(settings)
    chosen_ids = [a for a in args.model]
    unknown = [a for a in chosen_ids if a not in {p.id for p in packs}]
    if unknown:
        _say(f"jarvis: unknown pack(s): {', '.join(unknown)}. Packs: {', '.join(p.id for p in packs)}")
        return 2
    print(f"Free disk space for models: {disk_free(settings) / 1e9:.1f} GB ({settings.model_cache_path})")
    for i, p in enumerate(packs, 1):
        plan = pack_plan(p, settings, cached)
        state = "ready" if not plan.models else f"{plan.total_mb / 1000:.1f} GB to download"
        print(f"  {i}. {p.title:<28} [{p.id}] {state}: {p.summary}")
    problem = setup_reachability(settings)
    if problem:
        print(problem)
        return 1
    if not chosen_ids:
        if not sys.stdin.isatty():
            _say("Choose packs: jarvis models setup PACK... (e.g. jarvis models setup images)")
            return 0
        answer = input("Packs to download (numbers or ids, space-separated; empty: none): ").split()
        for a in answer:
            chosen_ids.append(packs[int(a) - 1].id if a.isdigit() and 0 < int(a) <= len(packs) else a)
        if not chosen_ids:
            print("nothing chosen")
            return 0
    chosen = [p for p in packs if p.id in chosen_ids]
    models: dict[str, Any] = {}
    for p in chosen:
        for m in pack_plan(p, settings, cached).models:
            models.setdefault(m.model_id, m)
    if not models:
        print("everything in those packs is already on this computer")
        return 0
    total = sum(m.size_mb for m in models.values())
    print(f"to download: {len(models)} model(s), about {total / 1000:.1f} GB")
    if total * 1e6 > disk_free(settings):
        _say(f"jarvis: not enough disk space: about {total / 1000:.1f} GB needed, {disk_free(settings) / 1e9:.1f} GB free")
        return 1
    if not args.yes and sys.stdin.isatty() and input("Download? [y/N] ").strip().lower() not in ("y", "yes"):
        print("cancelled")
        return 1
    return _download(list(models.values()), settings, CancelToken())


def _download(models: list, settings, cancel) -> int:
    from .experts.packs import download

    with _bar_columns() as bars:
        tasks = {m.model_id: bars.add_task(m.model_id, total=int(m.size_mb * 1e6) or None) for m in models}

        def show(p):
            bars.update(tasks[p.model_id], completed=p.done_bytes, total=p.total_bytes or None)

        try:
            results = download(models, settings, on_progress=show, cancel=cancel)
        except KeyboardInterrupt:  # Ctrl+C: the files finished so far stay; the same command resumes
            cancel.cancel()
            _say("stopped: run the same command again to fetch what is missing")
            return 130
    failed = [r for r in results if r.error]
    for r in failed:
        _say(f"jarvis: {r.error}")
    print(f"{len(results) - len(failed)} of {len(results)} model(s) ready")
    if any(r.cancelled for r in results):
        return 130
    return 1 if failed else 0

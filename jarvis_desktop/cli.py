"""``jarvis``: the command line. Progress goes to stderr while work runs; results to stdout.

Imports are kept inside the commands so ``jarvis --help`` and ``jarvis --version`` are instant.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from . import __version__


def _settings():
    from .config import SettingsError, load_settings

    try:
        return load_settings()
    except SettingsError as e:
        print(f"jarvis: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def _assistant(settings=None):
    from .pipeline.assistant import Assistant

    return Assistant(settings or _settings())


class Progress:
    """Prints each stage's progress on stderr, and (optionally) the answer as it streams."""

    def __init__(self, stream_answer: bool = True, quiet: bool = False):
        from rich.console import Console

        self.err = Console(stderr=True, highlight=False)
        self.stream_answer = stream_answer
        self.quiet = quiet
        self.streamed = False

    def __call__(self, e) -> None:
        from .pipeline import events as ev

        from .textclean import shown

        say = (lambda m: None) if self.quiet else (lambda m: self.err.print(shown(m), markup=False))
        if isinstance(e, ev.StageStarted):
            say(f"· {e.stage}…")
        elif isinstance(e, ev.PlanReady):
            tasks = ", ".join(f"{t['id']}:{t['task']}" for t in e.plan) or "no tasks (plain answer)"
            say(f"  plan ({e.source}, {e.seconds * 1000:.0f} ms): {tasks}")
            if e.note and e.source == "fallback":
                say(f"  note: {e.note}")
        elif isinstance(e, ev.ModelChosen):
            say(f"  task {e.task_id} {e.task} -> {e.model_id or '(none)'} [{e.where or 'not available'}]: {e.reason}")
        elif isinstance(e, ev.TaskStarted):
            say(f"  ▶ task {e.task_id} {e.task} started")
        elif isinstance(e, ev.TaskFinished):
            say(f"  ✔ task {e.task_id} {e.task} done in {e.seconds:.2f} s" + (f" -> {', '.join(e.files)}" if e.files else ""))
        elif isinstance(e, ev.TaskFailed):
            say(f"  ✘ task {e.task_id} {e.task} failed: {e.error}")
        elif isinstance(e, ev.TaskSkipped):
            say(f"  – task {e.task_id} {e.task} {e.reason}")
        elif isinstance(e, ev.AnswerToken) and self.stream_answer:
            if not self.streamed:
                self.streamed = True
            sys.stdout.write(e.text)
            sys.stdout.flush()
        elif isinstance(e, ev.AnswerDone) and self.stream_answer and self.streamed:
            sys.stdout.write("\n")
            sys.stdout.flush()


# ------------------------------------------------------------------------------------------
# commands


def cmd_ask(args) -> int:
    settings = _settings()
    assistant = _assistant(settings)
    files = list(args.file or [])
    text = args.request or ""
    if text == "-":  # the request on stdin (cleaned like any other text by the assistant)
        text = sys.stdin.read()
    if args.audio and not text:  # the spoken request becomes the text (as in `jarvis listen`)
        text = _transcribe_request(settings, args.audio)
        if text is None:
            return 1
    elif args.audio:  # a request about the audio: attach it
        files.append(args.audio)
    files += _files_named_here(text, files)
    speaker = _speaker(settings) if args.speak else None
    progress = Progress(stream_answer=not args.json)
    try:
        def listen(e):
            progress(e)
            if speaker is not None:
                speaker.on_event(e)

        result = assistant.ask(text, files, session_id=args.session, on_event=listen)
        if speaker is not None:
            speaker.wait()
    except KeyboardInterrupt:
        return 130
    finally:
        assistant.close()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    return 0 if result.status == "done" else 1


def _files_named_here(text: str, given: list[str]) -> list[str]:
    """Files the request names that exist here (``jarvis ask "transcribe talk.mp3"`` in the
    folder that holds it): attached as if given with --file, each said on stderr. In a terminal
    that is what naming a file means; the window has no such folder, and asks for them instead."""
    from .planning.extract import FILE_RE

    have = {Path(f).expanduser().resolve() for f in given}
    out = []
    for m in FILE_RE.finditer(text):
        p = Path(m.group(1)).expanduser()
        if p.is_file() and p.resolve() not in have:
            have.add(p.resolve())
            out.append(str(p))
            print(f"attached {p} (named in the request)", file=sys.stderr)
    return out


def _transcribe_request(settings, path: str) -> str | None:
    """``ask --audio FILE`` with no text: the spoken request becomes the text."""
    from .media import MediaError

    try:
        from .voice.asr import Transcriber

        transcript = Transcriber(settings).transcribe_file(path)
    except (MediaError, RuntimeError, OSError) as e:
        print(f"jarvis: could not transcribe {path}: {e}", file=sys.stderr)
        return None
    text = getattr(transcript, "text", str(transcript)).strip()
    print(f"(heard) {text}", file=sys.stderr)
    return text


def _speaker(settings):
    """The streaming speaker from the voice package, if it is there; else a note."""
    try:
        from .voice.speaker import EventSpeaker
    except ImportError:
        print("jarvis: speech output is not available in this installation", file=sys.stderr)
        return None
    try:
        return EventSpeaker(settings)
    except Exception as e:  # no sound device: answer in text only
        print(f"jarvis: cannot speak ({e}); answering in text only", file=sys.stderr)
        return None


def cmd_chat(args) -> int:
    settings = _settings()
    assistant = _assistant(settings)
    speaker = _speaker(settings) if args.speak else None
    session = args.session
    print("JARVIS chat. Type a request (attach files with: /file PATH), /new for a new conversation, /quit to leave.",
          file=sys.stderr)
    files: list[str] = []
    try:
        while True:
            try:
                line = input("you> ").strip()
            except EOFError:
                break
            if not line:
                continue
            if line in ("/quit", "/exit", "/q"):
                break
            if line == "/new":
                session, files = None, []
                print("(new conversation)", file=sys.stderr)
                continue
            if line.startswith("/file "):
                path = line[6:].strip().strip("'\"")
                from .media import MediaError, check_attachment

                try:
                    check_attachment(path)
                    files.append(path)
                    print(f"(attached {Path(path).name})", file=sys.stderr)
                except MediaError as e:
                    print(f"(not attached) {e}", file=sys.stderr)
                continue
            progress = Progress()
            sys.stdout.write("jarvis> ")

            def listen(e, progress=progress):
                progress(e)
                if speaker is not None:
                    speaker.on_event(e)

            try:
                result = assistant.ask(line, files, session_id=session, on_event=listen)
            except KeyboardInterrupt:
                print("\n(interrupted)", file=sys.stderr)
                continue
            session, files = result.session_id, []
            if speaker is not None:
                speaker.wait()
    finally:
        assistant.close()
    return 0


def cmd_plan(args) -> int:
    from .config import SettingsError, load_settings
    from .media import MediaError, check_attachment
    from .resident import ask_resident, plan_output

    attachments = []
    for f in list(args.file or []) + _files_named_here(args.request, list(args.file or [])):
        try:
            attachments.append(check_attachment(f))
        except MediaError as e:
            print(f"jarvis: {e}", file=sys.stderr)
            return 1
    try:  # the resident planner answers callers whose settings match its own, keyring aside
        out = ask_resident(args.request, attachments, load_settings(env=dict(os.environ)))
    except SettingsError:
        out = None  # said below, by the settings the command itself reads
    if out is None:
        assistant = _assistant(_settings())
        try:
            out = plan_output(assistant, args.request, attachments)
        finally:
            assistant.close()
    sys.stderr.write(out.stderr)
    sys.stdout.write(out.stdout)
    return out.code


def cmd_models(args) -> int:
    settings = _settings()
    if args.action == "refresh":
        from .experts.catalog import refresh_catalog

        try:
            catalog = refresh_catalog(settings, progress=lambda i, n, t: print(f"[{i + 1}/{n}] {t}", file=sys.stderr))
        except RuntimeError as e:
            print(f"jarvis: {e}", file=sys.stderr)
            return 1
        print(f"catalog refreshed: {len(catalog)} models -> {catalog.source}")
        return 0
    from .experts import model_store
    from .experts.base import ExpertError

    try:
        if args.action in ("export", "import", "setup"):
            from . import models_cli

            return getattr(models_cli, f"cmd_{args.action}")(args, settings)
        if args.action == "list":
            return _models_list(args, settings, model_store)
        if args.action == "pull":
            if not args.model:
                print("jarvis: give a model id, e.g. jarvis models pull facebook/detr-resnet-50", file=sys.stderr)
                return 2
            for mid in args.model:
                r = model_store.pull(mid, settings)
                print(f"{r.model_id}: {r.size_bytes / 1e6:.1f} MB in {r.seconds:.0f} s -> {r.path}"
                      + (f" (tasks: {', '.join(r.tasks)})" if r.tasks else ""))
            return 0
        if args.action == "rm":
            for mid in args.model:
                freed = model_store.remove(mid, settings)
                print(f"removed {mid} ({freed / 1e6:.1f} MB)")
            return 0
        # defaults: say what would be fetched and how much, then fetch it
        plan = model_store.plan_defaults(args.model or None, settings)
        for m in plan.models:
            print(f"  {m.task:<30} {m.model_id:<50} {m.size_mb:>8.0f} MB  {m.license}")
        if plan.nothing_to_fetch:
            print(f"  already available offline: {', '.join(plan.nothing_to_fetch)}")
        if plan.no_default:
            print(f"  no default for: {', '.join(plan.no_default)}")
        if not plan.models:
            print("nothing to download")
            return 0
        print(f"total download: about {plan.total_mb:.0f} MB")
        if not args.yes:
            if not sys.stdin.isatty() or input("Download these models? [y/N] ").strip().lower() not in ("y", "yes"):
                print("cancelled (use --yes to skip this question)")
                return 1
        for r in model_store.pull_defaults(args.model or None, settings):
            print(f"{r.model_id}: {r.size_bytes / 1e6:.1f} MB -> {r.path}")
        return 0
    except ExpertError as e:
        print(f"jarvis: {e}", file=sys.stderr)
        return 1


def _models_list(args, settings, model_store) -> int:
    """Cached models with sizes and task types; ``--all`` adds the catalog for a task."""
    cached = model_store.list_cached(settings)
    if args.task:
        cached = [m for m in cached if args.task in m.tasks]
    print(f"model cache: {settings.model_cache_path}")
    for m in cached:
        print(f"  {m.model_id:<55} {m.size_mb:>9.1f} MB  {', '.join(m.tasks) or '?'}")
    if not cached:
        print("  (empty: jarvis models pull MODEL_ID, or jarvis models defaults TASK...)")
    print(f"  {len(cached)} models, {sum(m.size_bytes for m in cached) / 1e9:.2f} GB")
    from .experts.defaults import build_registry

    registry = build_registry(settings)
    from .task_types import TASK_TYPES

    shipped = {t: registry.local_models(t) for t in TASK_TYPES}
    print("runnable now (shipped, built in or cached):")
    for t, models in shipped.items():
        if models and (not args.task or t == args.task):
            print(f"  {t:<30} {', '.join(models[:3])}")
    if args.all:
        from .experts.catalog import load_catalog

        catalog = load_catalog(settings)
        tasks = [args.task] if args.task else list(TASK_TYPES)
        print("catalog:")
        for t in tasks:
            for m in catalog.for_task(t)[: settings.candidates]:
                print(f"  {t:<30} {m.id:<55} {m.downloads:>10} downloads  {m.license or ''}")
    return 0


def cmd_sessions(args) -> int:
    from .store.sessions import SessionStore

    settings = _settings()
    store = SessionStore(settings.db_path)
    if args.action == "list":
        rows = store.search(args.query) if args.query else store.list_sessions()
        import datetime as dt

        from .textclean import shown

        for s in rows:
            when = dt.datetime.fromtimestamp(s.updated).strftime("%Y-%m-%d %H:%M")
            flag = "  [interrupted]" if getattr(s, "interrupted", 0) else ""
            print(f"{s.id}  {when}  {s.messages:3d} msgs  {shown(s.title)}{flag}")
        if not rows:
            print("(no sessions yet)", file=sys.stderr)
        return 0
    if not args.id:
        print("jarvis: give a session id (see: jarvis sessions list)", file=sys.stderr)
        return 2
    if args.action == "rerun":
        return _rerun(store, args)
    if args.action == "delete":
        ok = store.delete_session(args.id)
        print("deleted" if ok else f"no session {args.id}")
        return 0 if ok else 1
    data = store.export_session(args.id)
    if data is None:
        print(f"jarvis: no session {args.id} (see: jarvis sessions list)", file=sys.stderr)
        return 1
    if args.action == "export":
        text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(f"exported to {args.output}", file=sys.stderr)
        else:
            print(text)
        return 0
    from .textclean import shown

    for m in data["messages"]:
        print(f"{m['role']:>9}: {m['text']}")
        for f in m["files"]:
            print(f"{'':>11}[file] {shown(f)}")
    for r in data["requests"]:
        if r.get("status") not in ("done", None):
            print(f"{'':>11}request {r['id'][:8]} {r['status']}: {shown(r.get('error') or '')}")
        for t in r["tasks"]:
            print(f"{'':>11}task {t['task_id']} {t['task']} {t['status']} model={t['model_id']} {shown(t['error'] or '')}")
        for o in r["outputs"]:
            print(f"{'':>11}output {shown(o['path'])}")
    if any(r.get("status") == "interrupted" for r in data["requests"]):
        print(f"The interrupted request can run again: jarvis sessions rerun {args.id}")
    for rec in data.get("recordings") or []:
        print(f"{'recording':>9}: {rec['path']}  ({rec['seconds']:.1f} s) \"{rec['text']}\"")
    return 0


def _rerun(store, args) -> int:
    """Run a session's latest interrupted request again, in the same session."""
    request = store.interrupted_request(args.id)
    if request is None:
        print(f"jarvis: session {args.id} has no interrupted request (see: jarvis sessions show {args.id})", file=sys.stderr)
        return 1
    ask = argparse.Namespace(request=request["text"], file=request["files"], audio=None, speak=False, json=False,
                             session=args.id)
    print(f"(running again) {request['text']}", file=sys.stderr)
    code = cmd_ask(ask)
    if code == 0:  # answered now: the old request no longer waits to be run again
        store.update_request(request["id"], status="rerun")
    return code


def cmd_doctor(args) -> int:
    from .doctor import run_doctor

    return run_doctor(_settings(), check_controller=not args.no_controller)


def cmd_listen(args) -> int:
    settings = _settings()
    try:
        from .voice.conversation import listen_loop
    except ImportError as e:
        print(f"jarvis: voice input is not available ({e})", file=sys.stderr)
        return 1
    assistant = _assistant(settings)
    try:
        return int(listen_loop(assistant, settings) or 0)
    except KeyboardInterrupt:
        return 0
    finally:
        assistant.close()


def cmd_gui(args) -> int:
    try:
        from .ui.app import run_app
    except ImportError as e:
        print(f"jarvis: the desktop window is not available ({e}). Use 'jarvis chat'.", file=sys.stderr)
        return 1
    return run_app(sys.argv[:1])


def cmd_default(args) -> int:
    """No subcommand: the desktop window when there is a display, else the terminal chat."""
    has_display = bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("win32", "darwin")
    if has_display:
        try:
            import importlib.util

            if importlib.util.find_spec("PySide6") and importlib.util.find_spec("jarvis_desktop.ui.app"):
                return cmd_gui(args)
        except ImportError:
            pass
    else:
        print("No display found (DISPLAY is not set): starting the terminal chat. "
              "Run on a desktop session, or under xvfb-run, for the window.", file=sys.stderr)
    args.speak, args.session = False, None
    return cmd_chat(args)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jarvis", description="JARVIS Desktop: a HuggingGPT-style assistant that runs expert models locally.")
    p.add_argument("--version", action="version", version=f"jarvis-desktop {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = p.add_subparsers(dest="command")

    a = sub.add_parser("ask", help="one request, answered on stdout")
    a.add_argument("request", nargs="?", default="", help="the request ('-' reads it from stdin)")
    a.add_argument("--file", "-f", action="append", help="attach a file (repeatable)")
    a.add_argument("--audio", help="a spoken request in an audio file (transcribed when no text is given)")
    a.add_argument("--speak", action="store_true", help="read the answer aloud")
    a.add_argument("--json", action="store_true", help="print the plan, models, results and answer as JSON")
    a.add_argument("--session", help="continue a session")
    a.set_defaults(fn=cmd_ask)

    c = sub.add_parser("chat", help="a conversation in the terminal")
    c.add_argument("--speak", action="store_true")
    c.add_argument("--session")
    c.set_defaults(fn=cmd_chat)

    pl = sub.add_parser("plan", help="print the validated plan for a request")
    pl.add_argument("request")
    pl.add_argument("--file", "-f", action="append")
    pl.set_defaults(fn=cmd_plan)

    m = sub.add_parser("models", help="the model catalog and the local model cache")
    m.add_argument("action", choices=["list", "refresh", "pull", "rm", "defaults", "export", "import", "setup"])
    m.add_argument("model", nargs="*", help="model id(s) for pull/rm; task types for defaults; export: DIR then task "
                   "types or model ids; import: DIR; setup: pack ids (images, listen, make-images, text)")
    m.add_argument("--as", dest="repo_id", help="import: the model id of a plain model folder (hf download --local-dir)")
    m.add_argument("--all", action="store_true", help="list: the whole catalog, not only cached models")
    m.add_argument("--task", help="list: only this task type")
    m.add_argument("--yes", "-y", action="store_true", help="rm/defaults: do not ask")
    m.set_defaults(fn=cmd_models)

    s = sub.add_parser("sessions", help="the session log")
    s.add_argument("action", choices=["list", "show", "export", "delete", "rerun"],
                   help="rerun: run the session's interrupted request again")
    s.add_argument("id", nargs="?")
    s.add_argument("--query", "-q", help="list: full-text search")
    s.add_argument("--output", "-o", help="export: write to this file")
    s.set_defaults(fn=cmd_sessions)

    d = sub.add_parser("doctor", help="check this machine: versions, devices, models, controller")
    d.add_argument("--no-controller", action="store_true", help="do not start or call the controller")
    d.set_defaults(fn=cmd_doctor)

    li = sub.add_parser("listen", help="hands-free voice conversation in the terminal")
    li.set_defaults(fn=cmd_listen)

    g = sub.add_parser("gui", help="the desktop window")
    g.set_defaults(fn=cmd_gui)
    return p


def main(argv: list[str] | None = None) -> int:
    _robust_streams()
    parser = build_parser()
    _plugin_commands(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    fn = getattr(args, "fn", None) or cmd_default
    try:
        code = int(fn(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, not as noise at interpreter exit
        return code
    except BrokenPipeError:  # `jarvis sessions list | head -2`: the reader has what it wanted
        _quiet_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug: one line (the traceback with -v), never a wall of text
        if args.verbose:
            raise
        print(f"jarvis: unexpected error: {type(e).__name__}: {e} (run with -v for details)", file=sys.stderr)
        return 1


def _robust_streams() -> None:
    """Output never fails on a character the terminal cannot show, and stdin never fails on bytes
    that are not UTF-8 (they become escapes the assistant then cleans)."""
    for stream, errors in ((sys.stdout, "backslashreplace"), (sys.stderr, "backslashreplace"), (sys.stdin, "surrogateescape")):
        try:
            stream.reconfigure(errors=errors)
        except (AttributeError, ValueError, OSError):
            pass


def _quiet_stdout() -> None:
    """After a broken pipe, point stdout at devnull so the interpreter's final flush is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _plugin_commands(parser: argparse.ArgumentParser) -> None:
    """Subcommands that live with their feature (REST server, desktop entry): each such module
    has ``register(subparsers)``; a missing one simply adds nothing."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for module in ("jarvis_desktop.server.cli", "jarvis_desktop.desktop_entry"):
        try:
            mod = __import__(module, fromlist=["register"])
        except ImportError:
            continue
        mod.register(sub)


if __name__ == "__main__":
    raise SystemExit(main())

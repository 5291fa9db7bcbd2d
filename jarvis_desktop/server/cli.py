"""``jarvis serve``: the REST server on 127.0.0.1, or on another address only when asked twice
(``--host`` plus ``--allow-remote``) and protected by a token."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _default_upload_mb() -> float:
    try:
        return float(os.environ.get("JARVIS_SERVER_MAX_UPLOAD_MB", "") or 100)
    except ValueError:
        return 100.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the assistant over HTTP on 127.0.0.1 (REST and OpenAI-compatible API)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument("--token", help="require 'Authorization: Bearer TOKEN' (default: server_token setting or "
                                   "JARVIS_SERVER_TOKEN)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a --host other than loopback (needs a token; file paths in bodies are then refused)")
    p.add_argument("--max-upload-mb", type=float, default=_default_upload_mb(),
                   help="largest request body, uploads included (default 100, or JARVIS_SERVER_MAX_UPLOAD_MB)")
    p.set_defaults(fn=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from .app import LOOPBACK_HOSTS, create_app
    except ImportError as e:
        print(f"jarvis serve: the server parts are not installed ({e}). Install them with: "
              "pip install 'jarvis-desktop[server]'", file=sys.stderr)
        return 2
    from ..config import SettingsError, load_settings
    from ..pipeline.assistant import Assistant

    try:
        settings = load_settings()
    except SettingsError as e:
        print(f"jarvis: {e}", file=sys.stderr)
        return 2
    token = args.token or settings.server_token or None
    local = is_loopback(args.host)
    if not local and not args.allow_remote:
        print(f"jarvis serve: {args.host} is reachable from other machines. Add --allow-remote (and a --token) "
              "if that is what you want.", file=sys.stderr)
        return 2
    if not local and not token:
        print("jarvis serve: a server reachable from other machines needs a token: --token or JARVIS_SERVER_TOKEN.",
              file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        print("jarvis serve: --port must be 1-65535", file=sys.stderr)
        return 2
    if args.max_upload_mb <= 0:
        print("jarvis serve: --max-upload-mb must be positive", file=sys.stderr)
        return 2

    assistant = Assistant(settings)
    app = create_app(assistant, settings, token=token, max_upload_bytes=int(args.max_upload_mb * 1024 * 1024),
                     allow_local_paths=local, allowed_hosts=list(LOOPBACK_HOSTS) if local else None)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"JARVIS server on http://{shown}:{args.port}  (OpenAI-compatible base URL http://{shown}:{args.port}/v1"
          f"{', token required' if token else ''}). Ctrl+C stops it.", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, host=args.host.strip("[]"), port=args.port,
                            log_level="info" if getattr(args, "verbose", False) else "warning",
                            timeout_graceful_shutdown=5)
    try:
        uvicorn.Server(config).run()
    finally:
        assistant.close()
    return 0

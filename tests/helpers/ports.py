"""A free TCP port on 127.0.0.1, for the real servers the tests start (and for addresses where
nothing listens)."""

from __future__ import annotations

import socket


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

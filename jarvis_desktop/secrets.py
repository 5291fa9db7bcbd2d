"""API keys and tokens in the OS keyring, never in the settings file, the database or the logs.

Machines without a keyring backend (headless Linux, CI) raise from every keyring call; there the
secrets come from the environment only, and ``store_secret`` says so instead of failing.
"""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)

SERVICE = "jarvis-desktop"
#: Settings fields that are secrets (kept in sync with config.SECRET_FIELDS).
SECRET_NAMES = ("api_key", "azure_api_key", "hf_token", "server_token")


def _keyring():
    """The keyring module, or None when it is not installed or switched off (JARVIS_NO_KEYRING=1)."""
    if os.environ.get("JARVIS_NO_KEYRING") == "1":
        return None
    try:
        import keyring
    except ImportError:
        return None
    return keyring


def keyring_available() -> bool:
    """True when a real backend (not keyring's 'fail' backend) can store secrets."""
    kr = _keyring()
    if kr is None:
        return False
    try:
        backend = kr.get_keyring()
    except Exception:  # a broken backend configuration
        return False
    return getattr(backend, "priority", 0) > 0 and "fail" not in type(backend).__module__


def get_secret(name: str) -> str:
    """The stored secret, or "" when none is stored or no keyring can be read."""
    kr = _keyring()
    if kr is None:
        return ""
    try:
        return kr.get_password(SERVICE, name) or ""
    except Exception as e:  # NoKeyringError, a locked or unreachable backend
        log.debug("keyring unavailable reading %s: %s", name, type(e).__name__)
        return ""


def store_secret(name: str, value: str) -> tuple[bool, str]:
    """Store (or with an empty value, delete) a secret. Returns (stored, message for the user)."""
    kr = _keyring()
    if kr is None:
        return False, "No keyring is available: set the key in the environment instead."
    try:
        if value:
            kr.set_password(SERVICE, name, value)
            return True, "Saved in the system keyring."
        try:
            kr.delete_password(SERVICE, name)
        except Exception as e:
            if type(e).__name__ != "PasswordDeleteError":
                raise
        return True, "Removed from the system keyring."
    except Exception as e:
        log.debug("keyring unavailable storing %s: %s", name, type(e).__name__)
        return False, (f"The system keyring is unavailable ({type(e).__name__}); the key is used for this "
                       "session only. Set it in the environment to keep it.")


def stored_secrets() -> dict[str, str]:
    """Every secret the keyring holds, by settings field name (empty ones left out)."""
    out = {}
    for name in SECRET_NAMES:
        v = get_secret(name)
        if v:
            out[name] = v
    return out

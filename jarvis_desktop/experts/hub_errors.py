"""One clear line for anything that goes wrong talking to the Hugging Face Hub.

Downloads, catalog refreshes and the setup packs all reach the network through huggingface_hub,
whose failures arrive as a chain of httpx/socket/HTTP errors. A user needs to know what happened
(no network, name not resolved, timed out, gated, not found, rate-limited) and what to do next,
never a traceback. ``explain`` walks the exception chain and picks the most telling cause.
"""

from __future__ import annotations

import socket

HUB = "https://huggingface.co"

#: What to do when the machine has no network at all: carry models over from another machine.
OFFLINE_ROUTE = ("Without network, copy models from another computer: there run "
                 "`jarvis models export DIR [TASK|MODEL...]`, then here `jarvis models import DIR`.")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in seen and len(seen) < 20:
        seen.append(e)
        e = e.__cause__ or e.__context__
    return seen


def _names(e: BaseException) -> set[str]:
    return {c.__name__ for c in type(e).__mro__}


def _status(e: BaseException) -> int | None:
    resp = getattr(e, "response", None)
    code = getattr(resp, "status_code", None)
    return int(code) if isinstance(code, int) else None


_DNS_WORDS = ("name or service not known", "nodename nor servname", "temporary failure in name resolution",
              "getaddrinfo failed", "no address associated", "name resolution")


def explain(exc: BaseException, model_id: str = "", action: str = "", with_route: bool = True) -> str:
    """One line saying what went wrong reaching the Hub and what to do about it.

    ``action`` names what was being done ("download 'org/name'"); it defaults to downloading
    ``model_id``. ``with_route``: end network failures with the export/import route.
    """
    route = f" {OFFLINE_ROUTE}" if with_route else ""
    what = action or (f"download '{model_id}'" if model_id else "reach the Hugging Face Hub")
    page = f"{HUB}/{model_id}" if model_id else HUB
    chain = _chain(exc)
    names = set().union(*(_names(e) for e in chain))
    text = " ".join(str(e) for e in chain).lower()
    status = next((s for s in (_status(e) for e in chain) if s is not None), None)

    if "OfflineModeIsEnabled" in names:
        return (f"Cannot {what}: Hugging Face offline mode is on (HF_HUB_OFFLINE=1). "
                f"Unset it to download.{route}")
    if "GatedRepoError" in names or status == 403:
        return (f"Cannot {what}: the model is gated. Accept its licence at {page} (signed in), "
                "then set a Hugging Face token (HF_TOKEN, or Settings > Experts) and try again.")
    if status == 401:
        return (f"Cannot {what}: the Hub refused access (HTTP 401). If the model is private or gated, accept its "
                f"licence at {page} and set a valid Hugging Face token (HF_TOKEN, or Settings > Experts).")
    if "RevisionNotFoundError" in names:
        return f"Cannot {what}: the Hub has no such revision of it. Check the revision name at {page}."
    if "RepositoryNotFoundError" in names or "RemoteEntryNotFoundError" in names or status == 404:
        return (f"Cannot {what}: it was not found on the Hugging Face Hub (HTTP 404). Check the spelling "
                f"(see {HUB}/models), or set HF_TOKEN if it is private.")
    if status == 429:
        return (f"Cannot {what}: the Hub is limiting requests (HTTP 429). Wait a few minutes and run the same "
                "command again (finished files are kept); a Hugging Face token (HF_TOKEN) raises the limit.")
    if status is not None and status >= 500:
        return (f"Cannot {what}: the Hub answered with a server error (HTTP {status}). Run the same command "
                "again later; finished files are kept and the download resumes.")
    if "gaierror" in names or any(w in text for w in _DNS_WORDS):
        return (f"Cannot {what}: the name of the Hub's server could not be resolved (no network or no DNS). "
                f"Connect to the internet and run the same command again.{route}")
    if names & {"TimeoutException", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "TimeoutError",
                "Timeout", "timeout"}:
        return (f"Cannot {what}: the Hub did not answer in time (network too slow or down). Run the same command "
                "again; finished files are kept and a cut download resumes where it stopped.")
    if names & {"ConnectError", "ConnectionRefusedError", "ConnectionError", "NetworkError", "RemoteProtocolError",
                "ReadError", "ConnectionResetError", "ProtocolError", "LocalEntryNotFoundError"}:
        return (f"Cannot {what}: the Hub could not be reached (no network, or the connection was refused or cut). "
                f"Check the network and run the same command again; finished files are kept.{route}")
    if status is not None:
        return f"Cannot {what}: the Hub answered HTTP {status}. Try again later."
    if isinstance(exc, OSError):
        return f"Cannot {what}: {exc}. Run the same command again to resume."
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return f"Cannot {what}: {first}"


def is_network_error(exc: BaseException) -> bool:
    """True when the failure means the Hub could not be reached at all (not an HTTP answer)."""
    chain = _chain(exc)
    if any(_status(e) is not None for e in chain):
        return False
    names = set().union(*(_names(e) for e in chain))
    return bool(names & {"gaierror", "ConnectError", "ConnectionRefusedError", "ConnectionError", "NetworkError",
                         "TimeoutException", "ConnectTimeout", "OfflineModeIsEnabled"})


def probe(endpoint: str | None = None, timeout: float = 5.0) -> OSError | None:
    """One TCP connect to the Hub's host: the error when it cannot be reached, else None.

    huggingface_hub retries a refused connection for about 20 s while logging each try; this
    answers at once. Skipped (None) behind a proxy, which the probe would not go through.
    """
    import os
    from urllib.parse import urlparse

    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")):
        return None
    if endpoint is None:
        from huggingface_hub import constants

        endpoint = constants.ENDPOINT
    u = urlparse(endpoint)
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        with socket.create_connection((u.hostname or "", port), timeout=timeout):
            return None
    except OSError as e:
        return e

"""Errors of the voice layer. Each message is meant to be shown to the user as it is."""

from __future__ import annotations


class VoiceError(RuntimeError):
    """Something in speech in/out failed for a reason the user can act on."""


class VoiceModelMissing(VoiceError):
    """A speech model named in the settings is not on this machine."""

    def __init__(self, model_id: str, detail: str = ""):
        self.model_id = model_id
        msg = f"the speech model '{model_id}' is not in the local model cache. Fetch it with: jarvis models pull {model_id}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class AudioDeviceError(VoiceError):
    """No usable sound device, or it went away while in use."""


class EmptyUtterance(VoiceError):
    """The recording held no speech (silence or noise only)."""

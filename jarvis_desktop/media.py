"""Media files: what kind a path is, and whether it can be read, checked before any model sees it.

A user drops arbitrary files on the window; a bad one must become a clear message naming the file
and what to do, never a stack trace from deep inside a model library.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".webp", ".tif", ".tiff"}
AUDIO_EXTS = {".wav", ".flac", ".mp3", ".ogg", ".m4a", ".aac", ".opus", ".webm"}
VIDEO_EXTS = {".mp4", ".avi", ".mov", ".mkv", ".m4v"}
#: Excel workbooks: read as the CSV text of their sheets (sheets.py)
SHEET_EXTS = {".xlsx", ".xlsm"}
#: Documents read as their text (documents.py): Word, OpenDocument, PDF, saved e-mail
DOC_EXTS = {".docx", ".odt", ".pdf", ".eml"}
TEXT_EXTS = {".txt", ".md", ".csv", ".tsv", ".json", ".log", ".rst", ".html", ".xml", ".yaml", ".yml"} | SHEET_EXTS | DOC_EXTS

#: Larger files are refused at attach time: they would stall a model and the user's session.
MAX_FILE_BYTES = 200 * 1024 * 1024
#: Images above this many pixels are refused (decompression bombs, accidental huge scans).
MAX_IMAGE_PIXELS = 80_000_000


class MediaError(ValueError):
    """A file that cannot be used, with a message fit to show the user."""


def is_workbook(path: str | Path) -> bool:
    """An Excel workbook: text to every step, read through sheets.py rather than as UTF-8."""
    return Path(str(path)).suffix.lower() in SHEET_EXTS


def kind_of(path: str | Path) -> str | None:
    """The media kind a file name suggests: image, audio, video, text, or None."""
    ext = Path(str(path)).suffix.lower()
    if ext in IMAGE_EXTS:
        return "image"
    if ext in AUDIO_EXTS:
        return "audio"
    if ext in VIDEO_EXTS:
        return "video"
    if ext in TEXT_EXTS:
        return "text"
    return None


@dataclass(frozen=True)
class Attachment:
    """A file the user gave with a request, checked to exist and to be of a known kind."""

    path: Path
    kind: str

    @property
    def name(self) -> str:
        return self.path.name


def check_attachment(path: str | Path) -> Attachment:
    """Check a user's file before it joins a request; raises MediaError with a readable message."""
    p = Path(path).expanduser()
    if not p.exists():
        raise MediaError(f"{p.name}: file not found ({p}). Check the path and attach it again.")
    if not p.is_file():
        raise MediaError(f"{p.name}: not a regular file. Attach a file, not a folder.")
    kind = kind_of(p)
    if kind is None:
        raise MediaError(
            f"{p.name}: unsupported file type '{p.suffix or '(none)'}'. "
            "Attach an image (png, jpg...), audio (wav, flac, mp3...), video, text, document (docx, pdf, eml) "
            "or spreadsheet (xlsx, csv) file."
        )
    size = p.stat().st_size
    if size == 0:
        raise MediaError(f"{p.name}: the file is empty (0 bytes). Save it again and re-attach it.")
    if size > MAX_FILE_BYTES:
        raise MediaError(
            f"{p.name}: {size / 1e6:.0f} MB is too large (limit {MAX_FILE_BYTES / 1e6:.0f} MB). "
            "Attach a smaller or shorter file."
        )
    if is_workbook(p):
        from .sheets import check_workbook

        check_workbook(p)
    elif p.suffix.lower() in DOC_EXTS:
        from .documents import check_document

        check_document(p)
    return Attachment(p.resolve(), kind)


def load_image(path: str | Path):
    """Open an image as RGB PIL image, or raise MediaError saying why it cannot be used."""
    from PIL import Image, UnidentifiedImageError

    p = Path(path)
    try:
        if p.stat().st_size == 0:
            raise MediaError(f"{p.name}: the image file is empty (0 bytes).")
        with Image.open(p) as im:
            w, h = im.size
            if w * h > MAX_IMAGE_PIXELS:
                raise MediaError(f"{p.name}: {w}x{h} pixels is too large (limit {MAX_IMAGE_PIXELS // 1_000_000} megapixels). Resize it first.")
            return im.convert("RGB")
    except FileNotFoundError:
        raise MediaError(f"{p.name}: file not found ({p}).") from None
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as e:
        raise MediaError(f"{p.name}: not a readable image ({type(e).__name__}). Is the file corrupt?") from None


def load_audio(path: str | Path, sample_rate: int = 16000):
    """Decode an audio file to mono float32 at ``sample_rate``; MediaError when it cannot be read."""
    import numpy as np
    import soundfile as sf

    p = Path(path)
    if not p.is_file():  # soundfile reports a missing file as an unreadable one
        raise MediaError(f"{p.name}: file not found ({p}).")
    try:
        data, sr = sf.read(str(p), dtype="float32", always_2d=True)
    except FileNotFoundError:
        raise MediaError(f"{p.name}: file not found ({p}).") from None
    except (sf.LibsndfileError, RuntimeError, OSError, ValueError) as e:
        raise MediaError(f"{p.name}: not a readable audio file ({str(e).splitlines()[0][:80]}). Is it corrupt?") from None
    if data.size == 0:
        raise MediaError(f"{p.name}: the audio file has no samples.")
    mono = data.mean(axis=1)
    if sr != sample_rate:
        mono = resample(mono, sr, sample_rate)
    return np.ascontiguousarray(mono, dtype=np.float32)


def resample(samples, source_rate: int, target_rate: int):
    """Linear-interpolation resampling: good enough for speech models, no extra dependency."""
    import numpy as np

    if source_rate == target_rate or len(samples) == 0:
        return np.asarray(samples, dtype=np.float32)
    n_out = max(1, int(round(len(samples) * target_rate / source_rate)))
    x_old = np.linspace(0.0, 1.0, num=len(samples), endpoint=False)
    x_new = np.linspace(0.0, 1.0, num=n_out, endpoint=False)
    return np.interp(x_new, x_old, samples).astype(np.float32)


def read_text_file(path: str | Path, limit: int = 200_000) -> str:
    """Read a text attachment (utf-8, tolerant), truncated to ``limit`` characters; a workbook
    as the CSV text of its sheets; a document (docx, pdf, eml...) as its text."""
    p = Path(path)
    if is_workbook(p):
        from .sheets import read_sheets, sheets_to_csv

        return sheets_to_csv(read_sheets(p))[:limit]
    if p.suffix.lower() in DOC_EXTS:
        from .documents import read_document

        return read_document(p, limit)
    try:
        return p.read_text(encoding="utf-8", errors="replace")[:limit]
    except OSError as e:
        raise MediaError(f"{p.name}: cannot read the file ({e.strerror}).") from None

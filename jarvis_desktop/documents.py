"""Documents (.docx, .odt, .pdf, .eml) as plain text: the form every text step reads.

People drop Word files, PDFs and saved e-mails on the window far more often than .txt files; each
used to be refused as an unknown file type. Word and OpenDocument files are zip archives of XML,
read here with the standard library; e-mails with the standard ``email`` package (headers and the
plain-text body, or the HTML body without its tags); PDFs with pypdf (their text layer: a scanned
PDF has none, and the user is told to attach its pages as images instead).
"""

from __future__ import annotations

import html
import re
import zipfile
from email import policy
from email.parser import BytesParser
from pathlib import Path
from xml.etree import ElementTree

from .media import DOC_EXTS, MediaError

#: The largest XML part of a Word/OpenDocument file read (a zip can hold a huge part in a small file).
MAX_PART_BYTES = 50_000_000
#: Pages of a PDF read at most: enough for any request, bounded for a 2,000-page manual.
MAX_PDF_PAGES = 300

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_TEXT_NS = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_PARTS = {".docx": "word/document.xml", ".odt": "content.xml"}
_APPS = {".docx": "your word processor", ".odt": "your word processor", ".pdf": "the app that made it",
         ".eml": "your mail app"}


def is_document(path: str | Path) -> bool:
    return Path(str(path)).suffix.lower() in DOC_EXTS


def check_document(path: str | Path, open_it: bool = False) -> None:
    """At attach time: the file is what its name says (a zip archive for .docx/.odt, a PDF header
    for .pdf). ``open_it``: also read its text, and refuse a document with none (a scanned PDF)."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext in _PARTS and not zipfile.is_zipfile(p):
        raise _unreadable(p, "the file is not a document archive")
    if ext == ".pdf":
        with open(p, "rb") as f:
            if b"%PDF" not in f.read(1024):
                raise _unreadable(p, "the file does not start like a PDF")
    if open_it and not read_document(p).strip():
        raise MediaError(_empty_message(p))


def read_document(path: str | Path, limit: int = 200_000) -> str:
    """The document's text, paragraphs on lines of their own, cut at ``limit`` characters."""
    p = Path(path)
    if not p.is_file():
        raise MediaError(f"{p.name}: file not found ({p}).")
    ext = p.suffix.lower()
    if ext in _PARTS:
        text = _office_text(p, _PARTS[ext], _W + "p" if ext == ".docx" else None)
    elif ext == ".pdf":
        text = _pdf_text(p, limit)
    elif ext == ".eml":
        text = _mail_text(p)
    else:
        raise MediaError(f"{p.name}: not a document this app reads (.docx, .odt, .pdf, .eml).")
    return text[:limit]


def _office_text(p: Path, part: str, word_paragraph: str | None) -> str:
    try:
        with zipfile.ZipFile(p) as z:
            info = z.getinfo(part)
            if info.file_size > MAX_PART_BYTES:
                raise MediaError(f"{p.name}: the document's text is too large to read "
                                 f"({info.file_size / 1e6:.0f} MB of XML). Save a shorter copy.")
            root = ElementTree.fromstring(z.read(info))
    except MediaError:
        raise
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError, EOFError) as e:
        raise _unreadable(p, type(e).__name__) from None
    if word_paragraph:  # Word: runs of <w:t>, with tabs and line breaks of their own
        paragraphs = []
        for para in root.iter(word_paragraph):
            bits = []
            for el in para.iter():
                if el.tag == _W + "t" and el.text:
                    bits.append(el.text)
                elif el.tag == _W + "tab":
                    bits.append("\t")
                elif el.tag in (_W + "br", _W + "cr"):
                    bits.append("\n")
            paragraphs.append("".join(bits))
    else:  # OpenDocument: headings and paragraphs, their spans inside
        paragraphs = ["".join(el.itertext()) for el in root.iter() if el.tag in (_TEXT_NS + "p", _TEXT_NS + "h")]
    return _tidy("\n".join(paragraphs))


def _pdf_text(p: Path, limit: int) -> str:
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError:  # pragma: no cover - pypdf is a dependency; a broken install says so
        raise MediaError(f"{p.name}: reading PDFs needs the pypdf package; run `make setup` again.") from None
    try:
        reader = PdfReader(str(p))
        if reader.is_encrypted and not reader.decrypt(""):
            raise MediaError(f"{p.name}: the PDF is password-protected. Save an unlocked copy and attach that.")
        out, size = [], 0
        for page in reader.pages[:MAX_PDF_PAGES]:
            text = page.extract_text() or ""
            out.append(text)
            size += len(text)
            if size >= limit:
                break
    except MediaError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AttributeError, IndexError) as e:
        raise _unreadable(p, type(e).__name__) from None
    return _tidy("\n\n".join(out))


def _mail_text(p: Path) -> str:
    try:
        with p.open("rb") as f:
            msg = BytesParser(policy=policy.default).parse(f)
        head = [f"{name}: {msg[name]}" for name in ("From", "To", "Date", "Subject") if msg[name]]
        body = msg.get_body(preferencelist=("plain", "html"))
        content = body.get_content() if body is not None else ""
        if body is not None and body.get_content_type() == "text/html":
            content = _html_text(content)
    except (OSError, LookupError, ValueError, TypeError) as e:
        raise _unreadable(p, type(e).__name__) from None
    return _tidy("\n".join(head) + ("\n\n" + content if content.strip() else ""))


def _html_text(markup: str) -> str:
    """An HTML body's words: scripts and styles dropped, block ends kept as line breaks."""
    markup = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", " ", markup)
    markup = re.sub(r"(?i)<br\s*/?>|</(p|div|li|tr|td|th|h\d)\s*>", "\n", markup)
    return html.unescape(re.sub(r"<[^>]+>", "", markup))  # inline tags (<b>, <a>) sit inside words


def _tidy(text: str) -> str:
    lines = [re.sub(r"[ \t\u00a0]+", " ", line).strip() for line in text.replace("\r", "\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _unreadable(p: Path, why: str) -> MediaError:
    return MediaError(f"{p.name}: not a readable {p.suffix.lstrip('.').upper()} document ({why}). "
                      f"Save it again from {_APPS.get(p.suffix.lower(), 'the app that made it')}, or paste its text.")


def _empty_message(p: Path) -> str:
    if p.suffix.lower() == ".pdf":
        return (f"{p.name}: the PDF has no text to read (a scanned PDF holds pictures of pages). "
                "Attach its pages as images and ask to read the text in them.")
    return f"{p.name}: the document has no text in it."

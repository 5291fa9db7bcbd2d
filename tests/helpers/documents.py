"""Real document files for tests: Word, OpenDocument, PDF (with or without a text layer, or
password-locked) and saved e-mail, each written in its real format."""

from __future__ import annotations

import zipfile
from email.message import EmailMessage
from pathlib import Path

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def word_file(path: Path, paragraphs: list[str]) -> Path:
    """A minimal real .docx: the parts Word itself needs, one run per paragraph, one with a tab."""
    body = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{p}</w:t></w:r></w:p>" for p in paragraphs)
    body += "<w:p><w:r><w:t>Total</w:t><w:tab/><w:t>42 EUR</w:t><w:br/><w:t>Due Friday</w:t></w:r></w:p>"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
                   'wordprocessingml.document.main+xml"/></Types>')
        z.writestr("word/document.xml", f'<?xml version="1.0"?><w:document {W}><w:body>{body}</w:body></w:document>')
    return path


def odt_file(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml",
                   '<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                   'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>'
                   '<text:h>Minutes</text:h><text:p>The board met on <text:span>Tuesday</text:span>.</text:p>'
                   '</office:text></office:body></office:document-content>')
    return path


def pdf_file(path: Path, lines: list[str], password_locked: bool = False) -> Path:
    """A real one-page PDF with a text layer (Helvetica), written object by object with a correct xref."""
    text = " ".join(f"({ln}) Tj 0 -16 Td" for ln in lines)
    stream = f"BT /F1 12 Tf 72 720 Td {text} ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    if password_locked:
        from pypdf import PdfReader, PdfWriter

        writer = PdfWriter(clone_from=PdfReader(str(path)))
        writer.encrypt("s3cret")
        writer.write(str(path))
    return path


def mail_file(path: Path, html: bool = False) -> Path:
    msg = EmailMessage()
    msg["From"] = "Dana Li <dana@example.org>"
    msg["To"] = "me@example.org"
    msg["Subject"] = "Inspection on Thursday"
    if html:
        msg.set_content("<html><style>p{color:red}</style><body><p>Can we move the inspection to <b>Thursday</b>?</p>"
                        "<p>Thanks &amp; regards</p></body></html>", subtype="html")
    else:
        msg.set_content("Can we move the inspection to Thursday?\n\nThanks")
    path.write_bytes(bytes(msg))
    return path

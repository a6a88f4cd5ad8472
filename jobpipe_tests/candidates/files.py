"""Resume files of every format, written by the tests themselves (no binary fixtures in the repo)."""

from __future__ import annotations

import io
from collections.abc import Sequence


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def make_pdf(lines: Sequence[str], *, author: str | None = None, text_layer: bool = True) -> bytes:
    """A one-page PDF with ``lines`` in Helvetica (Latin-1 text), as a word processor exports it."""
    if text_layer:
        body = "BT /F1 11 Tf 14 TL 50 760 Td " + " ".join(f"{_pdf_string(line)} Tj T*" for line in lines) + " ET"
    else:   # a "scan": only a filled rectangle, no text
        body = "0.5 g 50 50 500 700 re f"
    stream = body.encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Author " + _pdf_string(author or "").encode("latin-1") + b" /Producer (jobpipe tests) >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(f"{i} 0 obj\n".encode() + obj + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


def encrypt_pdf(data: bytes, password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(paragraphs: Sequence[str], *, header: Sequence[str] = (), table: Sequence[Sequence[str]] = (),
              author: str | None = None, textbox: str | None = None) -> bytes:
    """A .docx with a page header, body paragraphs, an optional table and an optional text box."""
    import docx
    from docx.oxml import parse_xml

    document = docx.Document()
    if author is not None:
        document.core_properties.author = author
    section = document.sections[0]
    for i, line in enumerate(header):
        (section.header.paragraphs[0] if i == 0 else section.header.add_paragraph()).text = line
    for line in paragraphs:
        document.add_paragraph(line)
    if table:
        t = document.add_table(rows=len(table), cols=max(len(r) for r in table))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    if textbox is not None:
        ns = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
              'xmlns:v="urn:schemas-microsoft-com:vml"')
        document.element.body.append(parse_xml(
            f'<w:p {ns}><w:r><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>{textbox}</w:t></w:r></w:p>'
            '</w:txbxContent></v:textbox></v:shape></w:pict></w:r></w:p>'))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()

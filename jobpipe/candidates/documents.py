"""Resume files -> text: .txt, .md, .json, .pdf (pypdf) and .docx (python-docx).

A file that cannot be read raises :class:`UnreadableResume` with a reason a person can act on
("encrypted PDF", "no text layer: a scanned image?"). Reasons never quote the file's content:
they end up in the quarantine table, and a resume is personal data.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import re
import zipfile
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import docx
from docx.opc.exceptions import PackageNotFoundError
from pypdf import PasswordType, PdfReader
from pypdf.errors import FileNotDecryptedError, PdfReadError

from jobpipe.normalize.text import INVISIBLE, clean_text

#: Formats a drop folder (and the CLI and the upload endpoint) read.
SUFFIXES = (".txt", ".md", ".json", ".pdf", ".docx")
#: Files larger than this are refused (a resume is kilobytes; a 10 MB file is a scan or a mistake).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: Characters of text kept per resume (the rest is dropped and the profile says ``truncated``).
MAX_TEXT_CHARS = 60_000
#: Suffix of a preferences file beside a resume: ``anna.pdf`` + ``anna.preferences.json``.
PREFERENCES_SUFFIX = ".preferences.json"


class UnreadableResume(ValueError):
    """The file cannot be read as a resume; ``str(exc)`` is the reason (no file content in it)."""


@dataclass(frozen=True)
class ReadText:
    text: str
    names: tuple[str, ...] = ()           # author metadata, a JSON "name": redaction hints
    candidate_id: str | None = None       # a JSON "id"
    preferences: dict[str, Any] | None = None
    truncated: bool = False
    written_at: date | None = None        # when the document was last saved (its metadata): what "present" means


def _saved(value: Any) -> date | None:
    """A metadata timestamp as a date, if it is a plausible one (not in the future, not before 1990)."""
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date) and date(1990, 1, 1) <= value <= date.today():
        return value
    return None


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _decode(data: bytes) -> str:
    """Text in UTF-8 (with or without BOM), UTF-16 with a BOM, or GB18030 (Chinese Windows exports)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:   # a BOM, then bytes that are no UTF-16 (cut short, binary)
            raise UnreadableResume(f"starts as UTF-16 but is not valid UTF-16 text ({exc.reason})") from exc
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise UnreadableResume("not valid UTF-8, UTF-16 or GB18030 text")


#: UTF-8 bytes read as cp1252 ("NaÃ¯ve", "â€™"): a lead byte's character and one to three continuation ones.
_MOJIBAKE = re.compile("[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6"
                       "\u02dc\u2013\u2014\u2018\u2019\u201a\u201c\u201d\u201e\u2020\u2021\u2022\u2026\u2030"
                       "\u2039\u203a\u20ac\u2122]{1,3}")


def _repair(match: re.Match[str]) -> str:
    for codec in ("cp1252", "latin-1"):   # latin-1 for bytes cp1252 leaves undefined ("â\x80¢" is "•")
        try:
            return match.group(0).encode(codec).decode("utf-8")
        except UnicodeError:
            continue
    return match.group(0)


def _finish(text: str, *, markup: bool) -> tuple[str, bool]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = INVISIBLE.sub("", _MOJIBAKE.sub(_repair, text))
    if markup:
        text = clean_text(text)   # markdown or HTML to text, the normalizer's way
    else:
        # a tab separates fields ("phone ...<tab>linkedIn"): keep it visible to the segment splitter
        text = "\n".join(line.replace("\t", "   ").rstrip() for line in text.split("\n"))
    text = text.strip()
    if not text:
        raise UnreadableResume("no text in the file")
    truncated = len(text) > MAX_TEXT_CHARS
    return (text[:MAX_TEXT_CHARS], truncated)


def _read_pdf(data: bytes) -> ReadText:
    # pypdf logs recoverable oddities of a file (object ids, offsets): nothing personal, but noise.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")   # many PDFs carry only an owner password: readable without one
            except Exception:  # noqa: BLE001 - unsupported encryption is still "encrypted"
                ok = PasswordType.NOT_DECRYPTED
            if not ok:
                raise UnreadableResume("encrypted PDF (password protected): save it without a password")
        pages = []
        for page in reader.pages:
            pages.append(page.extract_text() or "")
        meta = reader.metadata
        author = meta.get("/Author") if meta is not None else None
        try:
            saved = _saved(meta.modification_date or meta.creation_date) if meta is not None else None
        except (ValueError, TypeError):   # a malformed date string in the metadata
            saved = None
    except UnreadableResume:
        raise
    except FileNotDecryptedError:
        raise UnreadableResume("encrypted PDF (password protected): save it without a password") from None
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError,
            zipfile.BadZipFile, OSError) as exc:
        raise UnreadableResume(f"not a readable PDF ({type(exc).__name__})") from None
    text = "\n".join(pages)
    if not text.strip():
        raise UnreadableResume("PDF without a text layer (a scanned image?): OCR it or save it as text")
    body, truncated = _finish(text, markup=False)
    return ReadText(body, tuple(str(a) for a in [author] if a), truncated=truncated, written_at=saved)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"


def _paragraph_text(p: Any) -> str:
    """The text of one ``w:p``: its runs, tabs and breaks, not those of paragraphs nested in it."""
    out: list[str] = []

    def walk(el: Any) -> None:
        for child in el:
            tag = child.tag
            if tag == _W + "p" or tag == _MC_FALLBACK:
                continue   # a nested paragraph (text box) is read on its own; a fallback repeats its choice
            if tag == _W + "t":
                out.append(child.text or "")
            elif tag == _W + "tab":
                out.append("\t")
            elif tag in (_W + "br", _W + "cr"):
                out.append("\n")
            else:
                walk(child)

    walk(p)
    return "".join(out)


def _text_boxes(p: Any) -> list[Any]:
    """The text-box contents inside a paragraph (their own paragraphs), fallbacks left out."""
    return [box for box in p.iter(_W + "txbxContent") if not any(a.tag == _MC_FALLBACK for a in box.iterancestors())]


def _paragraphs(element: Any) -> list[str]:
    """The lines of a body, header or cell in document order: a paragraph per line, a table row per
    line with its cells joined by " | " (a label cell stays beside its value), text boxes after
    the paragraph that anchors them."""
    lines: list[str] = []
    for child in element:
        tag = child.tag
        if tag == _W + "p":
            lines.append(_paragraph_text(child))
            for box in _text_boxes(child):
                lines.extend(_paragraphs(box))
        elif tag == _W + "tbl":
            for row in child.iter(_W + "tr"):
                cells = [" ".join(line.strip() for line in _paragraphs(cell) if line.strip())
                         for cell in row.findall(_W + "tc")]
                lines.append(" | ".join(c for c in cells if c))
        elif tag in (_W + "sdt", _W + "sdtContent", _W + "customXml", _W + "smartTag", _W + "ins"):
            lines.extend(_paragraphs(child))
    return lines


def _read_docx(data: bytes) -> ReadText:
    try:
        document = docx.Document(io.BytesIO(data))
        header: list[str] = []
        for section in document.sections:
            for part in (section.header, section.first_page_header):
                if part is not None and not part.is_linked_to_previous:
                    header.extend(_paragraphs(part._element))
        footer: list[str] = []
        for section in document.sections:
            if section.footer is not None and not section.footer.is_linked_to_previous:
                footer.extend(_paragraphs(section.footer._element))
        body = _paragraphs(document.element.body)
        props = document.core_properties
        names = tuple(n for n in (props.author, props.last_modified_by) if n)
        saved = _saved(props.modified or props.created)
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError, TypeError, AttributeError) as exc:
        raise UnreadableResume(f"not a readable .docx file ({type(exc).__name__})") from None
    except Exception as exc:  # noqa: BLE001 - lxml and python-docx raise many kinds on a broken package
        raise UnreadableResume(f"not a readable .docx file ({type(exc).__name__})") from None
    # Headers first: that is where a resume template puts the name and contact line.
    seen: set[str] = set()
    lines = []
    for line in header + body + footer:
        key = line.strip()
        if key and key in seen and len(key) > 40:
            continue   # a header repeated on every section
        seen.add(key)
        lines.append(line)
    text, truncated = _finish("\n".join(lines), markup=False)
    return ReadText(text, names, truncated=truncated, written_at=saved)


def _read_json(data: bytes) -> ReadText:
    try:
        obj = json.loads(_decode(data))
    except json.JSONDecodeError as exc:
        raise UnreadableResume(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(obj, dict):
        raise UnreadableResume('expected a JSON object {"text": ..., "id"?, "name"?, "preferences"?}')
    unknown = sorted(set(obj) - {"id", "name", "text", "preferences"})
    if unknown:
        raise UnreadableResume(f"unknown field(s) {unknown}; known: id, name, text, preferences")
    text = obj.get("text")
    if not isinstance(text, str):
        raise UnreadableResume('"text" is missing or not a string')
    candidate_id = obj.get("id")
    if candidate_id is not None and (not isinstance(candidate_id, (str, int)) or not str(candidate_id).strip()):
        raise UnreadableResume('"id" must be a non-empty string')
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise UnreadableResume('"name" must be a string')
    preferences = obj.get("preferences")
    if preferences is not None and not isinstance(preferences, dict):
        raise UnreadableResume('"preferences" must be an object')
    body, truncated = _finish(text, markup=False)
    return ReadText(body, (name,) if name else (), str(candidate_id).strip() if candidate_id is not None else None,
                    preferences, truncated)


def read_bytes(data: bytes, suffix: str) -> ReadText:
    """The text of a resume file's bytes, by its suffix (``.pdf``, ``.docx``, ...)."""
    suffix = suffix.lower()
    if len(data) > MAX_FILE_BYTES:
        raise UnreadableResume(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
    if not data.strip():
        raise UnreadableResume("empty file")
    if suffix == ".pdf":
        return _read_pdf(data)
    if suffix == ".docx":
        return _read_docx(data)
    if suffix == ".json":
        return _read_json(data)
    if suffix in (".txt", ".md"):
        text, truncated = _finish(_decode(data), markup=suffix == ".md")
        return ReadText(text, truncated=truncated)
    if suffix == ".doc":
        raise UnreadableResume("legacy Word .doc is not supported: save it as .docx or .pdf")
    raise UnreadableResume(f"unsupported format {suffix or '(no suffix)'}; supported: {', '.join(SUFFIXES)}")


def read_file(path: Path) -> tuple[ReadText, bytes]:
    """``read_bytes`` of a file, with the bytes (for hashing)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableResume(f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableResume(f"cannot be opened ({type(exc).__name__})") from None
    return read_bytes(data, path.suffix), data

"""JSONL or CSV files with a column mapping (UTF-8, GBK, GB18030, ...).

The stored payload is the mapped row -- posting field names as keys -- with columns the
mapping does not name kept under ``extra``, so nothing in the file is lost.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.options import POSTING_FIELD_NAMES
from jobpipe.sources.session import SourceSession


def _rows(path: Path, fmt: str, encoding: str) -> Iterator[tuple[int, Any]]:
    if codecs.lookup(encoding).name == "utf-8":
        encoding = "utf-8-sig"  # tolerate a BOM (Excel exports)
    # csv wants newline=""; JSONL lines end at "\n" only (U+2028 or a stray "\r" is content)
    with open(path, encoding=encoding, newline="" if fmt == "csv" else "\n") as handle:
        if fmt == "csv":
            for number, row in enumerate(csv.DictReader(handle), start=2):
                yield number, {k: (v if v != "" else None) for k, v in row.items() if k is not None}
            return
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except ValueError as exc:
                yield number, PayloadError(f"{path.name} line {number}: not JSON ({exc})")


def _auto_mapping(row: dict[str, Any]) -> dict[str, str]:
    mapping = {name: name for name in POSTING_FIELD_NAMES if name in row}
    if "external_id" not in mapping and "id" in row:
        mapping["external_id"] = "id"
    return mapping


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    options = session.options
    path = Path(options["path"])
    mapping = options.get("fields")
    try:
        session.stats.add(bytes=path.stat().st_size)
        for number, row in _rows(path, options["format"], options["encoding"]):
            if isinstance(row, Exception):
                session.page_failed(row)
                continue
            if not isinstance(row, dict):
                session.page_failed(PayloadError(f"{path.name} line {number}: expected an object"))
                continue
            fields = mapping or _auto_mapping(row)
            payload: dict[str, Any] = {target: row.get(column) for target, column in fields.items()}
            mapped_columns = set(fields.values())
            extra = {k: v for k, v in row.items() if k not in mapped_columns}
            if extra:
                payload["extra"] = extra
            ident = as_text(payload.get("external_id"))
            if ident is None:
                session.page_failed(PayloadError(
                    f"{path.name} {'row' if options['format'] == 'csv' else 'line'} {number}: no value in "
                    f"external_id column {fields.get('external_id', 'id')!r}"))
                continue
            yield session.posting(ident, payload, as_text(payload.get("url")))
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{path}: not valid {options['encoding']} text ({exc.reason} at byte {exc.start}); "
                           "set 'encoding' in the sources file") from None
    except OSError as exc:
        raise PayloadError(f"{path}: cannot read ({exc.strerror or exc})") from None


_SCALARS = {"title", "company", "location", "remote_hint", "salary_text", "description", "url", "department",
            "seniority", "experience_text", "degree_text"}


def extract(payload: dict[str, Any]) -> PostingFields:
    fields = PostingFields()
    for key, value in payload.items():
        if key in ("external_id", "extra") or value is None:
            continue
        if key == "salary":
            if isinstance(value, dict):
                fields.salary = value
            else:
                fields.salary_text = as_text(value)
        elif key in ("location", "locations") and isinstance(value, list):
            texts = [as_text(v) for v in value if as_text(v)]
            if key == "location":
                fields.location = texts[0] if texts else None
                fields.locations.extend(texts[1:])
            else:
                fields.locations.extend(t for t in texts if t)  # type: ignore[misc]
        elif key == "locations":
            fields.locations.append(str(value))
        elif key == "employment_type":
            fields.employment_type = [str(v) for v in value] if isinstance(value, list) else as_text(value)
        elif key in ("posted_at", "valid_through"):
            setattr(fields, key, value if isinstance(value, (int, float, str)) and not isinstance(value, bool) else as_text(value))
        elif key in _SCALARS:
            setattr(fields, key, value if isinstance(value, str) else as_text(value))
    extra = payload.get("extra")
    if isinstance(extra, dict):
        fields.extra = dict(extra)
    return fields

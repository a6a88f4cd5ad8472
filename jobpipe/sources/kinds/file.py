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
from typing import Annotated, Any, Literal

from pydantic import PlainValidator, model_validator

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.options import POSTING_FIELD_NAMES, Encoding, ReadablePath, SourceConfig, choice, problem
from jobpipe.sources.session import SourceSession

_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
#: How many JSONL lines ``sources check`` reads to learn a file's keys (a CSV has its header).
KEY_SAMPLE_LINES = 1000


def _columns(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not value:
        raise problem("expected a mapping of posting field -> column name")
    for target, column in value.items():
        if target not in POSTING_FIELD_NAMES:
            raise problem(f"unknown posting field (one of: {', '.join(POSTING_FIELD_NAMES)})", f"fields.{target}")
        if not isinstance(column, str) or not column:
            raise problem("expected a column name", f"fields.{target}")
    if "external_id" not in value:
        raise problem("missing: name the column that identifies a posting", "fields.external_id")
    return dict(value)


class Config(SourceConfig):
    """``path``: a JSONL or CSV file, relative to the sources file; ``format``: jsonl or csv
    (default: from the extension); ``encoding``: utf-8, gbk, gb18030...; ``fields``: posting
    field -> column name (default: same-named columns, ``id`` as ``external_id``)."""

    kind: Literal["file"]
    path: ReadablePath
    format: Annotated[str, choice("jsonl", "csv")] | None = None
    encoding: Encoding = "utf-8"
    fields: Annotated[dict[str, str], PlainValidator(_columns)] | None = None

    @model_validator(mode="after")
    def _guess_format(self) -> Config:
        if self.format is None:
            suffix = Path(self.path).suffix.lower()
            if suffix not in _FORMATS:
                raise problem(f"missing and cannot be guessed from {Path(self.path).name!r} "
                              "(write format: jsonl or format: csv)", "format")
            self._resolve(format=_FORMATS[suffix])
        return self

    def problems(self) -> list[tuple[str, str]]:
        """Every mapped column the file does not have (a typo would load empty values)."""
        path = Path(self.path)
        try:
            columns, complete = file_columns(path, str(self.format), self.encoding)
            found = missing_columns(self.fields, columns, path.name, complete)
            if found and not complete:   # a rare key may first appear further down: read it all
                columns, complete = file_columns(path, str(self.format), self.encoding, sample=None)
                found = missing_columns(self.fields, columns, path.name, complete)
        except PayloadError as exc:
            return [("encoding" if "encoding" in str(exc) else "path", str(exc))]
        return found


def file_columns(path: Path, fmt: str, encoding: str, sample: int | None = KEY_SAMPLE_LINES) -> tuple[list[str], bool]:
    """The columns of a CSV (its header), or the keys of a JSONL file's first ``sample`` lines
    (None: all); ``complete`` says whether every line was read."""
    try:
        with open(path, encoding=_codec(encoding), newline="" if fmt == "csv" else "\n", errors="strict") as handle:
            if fmt == "csv":
                header = next(csv.reader(handle), [])
                return [c for c in header], True
            keys: dict[str, None] = {}
            for number, line in enumerate(handle):
                if sample is not None and number >= sample:
                    return list(keys), False
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if isinstance(row, dict):
                    keys.update(dict.fromkeys(row))
            return list(keys), True
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{path.name} is not valid {encoding} text ({exc.reason} at byte {exc.start}); "
                           "set 'encoding' in the sources file") from None
    except OSError as exc:
        raise PayloadError(f"cannot read {str(path)!r} ({exc.strerror or exc})") from None


def missing_columns(mapping: dict[str, str] | None, columns: list[str], file_name: str,
                    complete: bool = True) -> list[tuple[str, str]]:
    """(key, problem) for each mapped column absent from ``columns``."""
    have = set(columns)
    shown = ", ".join(columns[:30]) + (", ..." if len(columns) > 30 else "")
    where = "its columns" if complete else f"keys of its first {KEY_SAMPLE_LINES} lines"
    if mapping is None:
        if columns and not have & {"external_id", "id"}:
            return [("fields", f"{file_name} has no 'id' or 'external_id' column: map one as fields.external_id "
                               f"({where}: {shown})")]
        return []
    return [(f"fields.{target}", f"column {column!r} is not in {file_name} ({where}: {shown or 'none'})")
            for target, column in mapping.items() if column not in have]


def _codec(encoding: str) -> str:
    # tolerate a BOM (Excel exports)
    return "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding


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
    config = session.spec(Config)
    path = Path(config.path)
    mapping = config.fields
    try:
        session.stats.add(bytes=path.stat().st_size)
        for number, row in _rows(path, config.format, config.encoding):
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
                    f"{path.name} {'row' if config.format == 'csv' else 'line'} {number}: no value in "
                    f"external_id column {fields.get('external_id', 'id')!r}"))
                continue
            yield session.posting(ident, payload, as_text(payload.get("url")))
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{path}: not valid {config.encoding} text ({exc.reason} at byte {exc.start}); "
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

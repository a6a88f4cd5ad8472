"""JSONL or CSV files with a column mapping (UTF-8, GBK, GB18030, ...).

The stored payload is the mapped row -- posting field names as keys -- with columns the
mapping does not name kept under ``extra``, so nothing in the file is lost.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import PlainValidator, model_validator

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.options import POSTING_FIELD_NAMES, Encoding, ReadablePath, SourceConfig, choice, problem
from jobpipe.sources.result import Quarantined
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
    (None: all); ``complete`` says whether every line was read. Lines that do not decode or
    parse are skipped here (the fetch quarantines them); a file in another encoding raises."""
    lines = _Lines(path, encoding)
    try:
        if fmt == "csv":
            for _, row, _, _ in _csv_rows(lines, path.name, None, header_only=True):
                return list(row or {}), True
            return [], True
        keys: dict[str, None] = {}
        for _, row, _, _ in _jsonl_rows(lines, path.name):
            if row is not None:
                keys.update(dict.fromkeys(row))
            if sample is not None and lines.read >= sample:
                return list(keys), False
        lines.check_encoding()
        return list(keys), True
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


@dataclass
class _Line:
    number: int
    text: str
    problem: str | None = None     # why the bytes did not decode (the text then has \xNN escapes)


class _Lines:
    """A file's physical lines, each decoded on its own, so one damaged line costs that line.

    UTF-16 and UTF-32 have no byte-level line breaks: such files are decoded whole. A file whose
    non-ASCII lines mostly fail to decode is in another encoding, which is one error for the
    whole file (a person must set ``encoding``), not hundreds of quarantined lines.
    """

    def __init__(self, path: Path, encoding: str) -> None:
        self.path = path
        self.encoding = encoding
        self.non_ascii = 0
        self.read = 0
        self.failed: list[_Line] = []

    def __iter__(self) -> Iterator[_Line]:
        codec = codecs.lookup(self.encoding).name
        if codec.startswith(("utf-16", "utf-32")):
            try:
                text = self.path.read_text(encoding=self.encoding)
            except UnicodeDecodeError as exc:
                raise self._error(f"{exc.reason} at byte {exc.start}") from None
            for number, line in enumerate(text.split("\n"), start=1):
                yield _Line(number, line + "\n")
            return
        with open(self.path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                self.read = number
                if number == 1 and codec == "utf-8" and raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8):]   # Excel exports
                if raw.isascii():
                    yield _Line(number, raw.decode("ascii"))
                    continue
                self.non_ascii += 1
                try:
                    yield _Line(number, raw.decode(self.encoding))
                except UnicodeDecodeError as exc:
                    bad = _Line(number, raw.decode(self.encoding, "backslashreplace"),
                                f"not valid {self.encoding} text ({exc.reason} at byte {exc.start} of the line)")
                    self.failed.append(bad)
                    yield bad

    def check_encoding(self) -> None:
        """Raise when the failures say the whole file is in another encoding."""
        if len(self.failed) >= 2 and len(self.failed) * 2 > self.non_ascii:
            first = self.failed[0]
            raise self._error(f"{len(self.failed)} of {self.non_ascii} lines with non-ASCII bytes do not decode, "
                              f"first line {first.number}")

    def _error(self, detail: str) -> PayloadError:
        return PayloadError(f"{self.path.name}: not valid {self.encoding} text ({detail}); set 'encoding' in the sources file")


Row = tuple[str, dict[str, Any] | None, str, str | None]   # (position, row or None, raw text, problem)


def _jsonl_rows(lines: _Lines, name: str) -> Iterator[Row]:
    for line in lines:
        if not line.text.strip():
            continue
        position, raw = f"{name} line {line.number}", line.text.rstrip("\r\n")
        if line.problem:
            yield position, None, raw, line.problem
            continue
        try:
            row = json.loads(line.text)
        except ValueError as exc:
            yield position, None, raw, f"not JSON ({exc})"
            continue
        if not isinstance(row, dict):
            yield position, None, raw, f"expected a JSON object, got {type(row).__name__}"
            continue
        yield position, row, raw, None


def _csv_rows(lines: _Lines, name: str, mapping: dict[str, str] | None, *, header_only: bool = False) -> Iterator[Row]:
    """Rows as dicts; a record spanning lines (a quoted newline) is one row, at its first line.
    ``header_only``: yield the header (as a row of column -> column) and stop."""
    pending: list[_Line] = []

    def feed() -> Iterator[str]:
        for line in lines:
            pending.append(line)
            yield line.text

    reader = csv.reader(feed())
    header: list[str] | None = None
    for values in reader:
        record, pending[:] = list(pending), []
        if header is None:
            bad = next((line for line in record if line.problem), None)
            if bad is not None:
                raise PayloadError(f"{name}: the header line is {bad.problem}; set 'encoding' in the sources file")
            header = values
            if header_only:
                yield f"{name} line 1", dict(zip(header, header)), "", None
                return
            missing = missing_columns(mapping, header, name)
            if missing:
                key, text = missing[0]
                raise PayloadError(f"{key}: {text}")
            continue
        if not values:
            continue   # a blank line
        position = f"{name} line {record[0].number}" if record else f"{name} line {reader.line_num}"
        raw = "".join(line.text for line in record).rstrip("\r\n")
        problem = next((line.problem for line in record if line.problem), None)
        if problem:
            yield position, None, raw, problem
            continue
        extra = values[len(header):]
        if any(v.strip() for v in extra):
            yield position, None, raw, (f"{len(values)} values for {len(header)} columns (shifted or unquoted "
                                        "separator): not loaded, so no value lands in the wrong field")
            continue
        row = {column: (values[i] if i < len(values) and values[i] != "" else None) for i, column in enumerate(header)}
        yield position, row, raw, None


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return f"sha256:{digest.hexdigest()}"


def _auto_mapping(row: dict[str, Any]) -> dict[str, str]:
    mapping = {name: name for name in POSTING_FIELD_NAMES if name in row}
    if "external_id" not in mapping and "id" in row:
        mapping["external_id"] = "id"
    return mapping


def mapped_row(row: dict[str, Any], mapping: dict[str, str] | None = None) -> dict[str, Any]:
    """The stored payload of one row: posting field -> value, by ``mapping`` (default: columns
    named like posting fields, ``id`` as ``external_id``); other columns kept under ``extra``."""
    fields = mapping or _auto_mapping(row)
    payload: dict[str, Any] = {target: row.get(column) for target, column in fields.items()}
    mapped_columns = set(fields.values())
    extra = {k: v for k, v in row.items() if k not in mapped_columns}
    if extra:
        payload["extra"] = extra
    return payload


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    path = Path(config.path)
    mapping = config.fields
    seen_keys: set[str] = set()
    try:
        session.stats.add(bytes=path.stat().st_size)
        # A file dropped again unchanged (the common night) lists what it listed last time: its
        # digest is compared with the one remembered (per source and options, like an ETag),
        # and nothing is parsed. Only a clean file (no quarantined line) is remembered.
        url, digest = path.resolve().as_uri(), _file_digest(path)
        if session.input_unchanged(url, digest):
            return
        lines = _Lines(path, config.encoding)
        rows = _csv_rows(lines, path.name, mapping) if config.format == "csv" else _jsonl_rows(lines, path.name)
        for position, row, raw, problem in rows:
            if row is None:
                session.quarantine(Quarantined(position, problem or "unreadable", raw))
                continue
            seen_keys.update(row)
            payload = mapped_row(row, mapping)
            ident = as_text(payload.get("external_id"))
            if ident is None:
                column = (mapping or _auto_mapping(row)).get("external_id", "id")
                session.quarantine(Quarantined(position, f"no value in the external_id column {column!r}", raw))
                continue
            yield session.posting(ident, payload, as_text(payload.get("url")))
        lines.check_encoding()
    except OSError as exc:
        raise PayloadError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if config.format == "jsonl" and mapping and seen_keys:
        missing = missing_columns(mapping, sorted(seen_keys), path.name)
        if missing:
            raise PayloadError("; ".join(f"{key}: {text}" for key, text in missing))
    if not session.quarantined and not session.errors:
        session.remember_input(url, digest)


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
            texts = [t for t in map(as_text, value) if t]
            if key == "location":
                fields.location = texts[0] if texts else None
                fields.locations.extend(texts[1:])
            else:
                fields.locations.extend(texts)
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

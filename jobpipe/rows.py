"""The posting row, declared once: every table column that holds a posting field, derived from
the ``NormalizedPosting`` dataclass.

The dataclass is the one declaration of what a posting is. Every column list, COPY type list,
row builder and reader of ``normalized_postings``, ``jobs`` (and its staging table) and the
validation frame comes from :data:`POSTING_COLUMNS` here, as ``jobpipe.hashing`` derives the
hashes from the same fields. Adding a field to the dataclass therefore needs no edit here: only
a migration adding the column (a test compares these lists with the migrated tables and names
what is missing).

Nested dataclasses (``salary: Salary``) flatten to ``<field>_<subfield>`` columns; a subfield may
name its column with ``metadata={"column": ...}`` (``Salary.months_per_year`` is ``salary_months``).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb

from jobpipe.models import NormalizedPosting, Salary

#: Python annotation (as written in the dataclass) -> PostgreSQL type.
_PG_TYPES = {
    "str": "text", "str | None": "text",
    "list[str]": "text[]",
    "float | None": "numeric", "float": "numeric",
    "int | None": "int4", "int": "int4",
    "bool": "bool",
    "datetime | None": "timestamptz",
    "date | None": "date",
    "dict[str, str]": "jsonb", "dict[str, Any]": "jsonb",
}
#: Nested dataclasses that flatten into prefixed columns.
_NESTED = {"Salary": Salary}
#: Bookkeeping fields that only the ingest table (``normalized_postings``) keeps, and their types.
_INGEST_ONLY = {"raw_id": "int8", "fetch_id": "int8"}


@dataclass(frozen=True)
class Column:
    """One table column holding one posting field."""

    name: str                 # SQL column name
    pg_type: str              # PostgreSQL type, as COPY's set_types and CREATE spell it
    path: tuple[str, ...]     # attribute path on NormalizedPosting: ("title",) or ("salary", "min")
    optional: bool = True     # the field may be None
    annotation: Any = None    # the Python type readers get (str | None, list[str], ...)
    doc: str = ""             # what the field means (the dataclass field's ``metadata["doc"]``)

    @property
    def attr(self) -> str:
        return ".".join(self.path)


def _pg_type(owner: type, f: dataclasses.Field[Any]) -> str:
    kind = _PG_TYPES.get(str(f.type))
    if kind is None:
        raise TypeError(f"{owner.__name__}.{f.name}: no column type for annotation {f.type!r}; "
                        "add it to jobpipe.rows._PG_TYPES")
    return kind


@functools.cache
def _hints(owner: type) -> dict[str, Any]:
    return typing.get_type_hints(owner)


def _column(owner: type, f: dataclasses.Field[Any], name: str, path: tuple[str, ...]) -> Column:
    return Column(name, _pg_type(owner, f), path, "None" in str(f.type), _hints(owner)[f.name],
                  f.metadata.get("doc", ""))


def _columns() -> tuple[Column, ...]:
    out: list[Column] = []
    for f in dataclasses.fields(NormalizedPosting):
        if f.name in _INGEST_ONLY:
            continue
        nested = _NESTED.get(str(f.type))
        if nested is None:
            out.append(_column(NormalizedPosting, f, f.name, (f.name,)))
            continue
        for sub in dataclasses.fields(nested):
            out.append(_column(nested, sub, f"{f.name}_{sub.metadata.get('column', sub.name)}", (f.name, sub.name)))
    return tuple(out)


#: Every stored posting field, in declaration order (``content_hash`` included).
POSTING_COLUMNS: tuple[Column, ...] = _columns()
#: Columns only ``normalized_postings`` keeps: the payload a row was normalized from (its key) and
#: the fetch run whose normalization wrote it.
#: ``raw_id`` is the table's key (a row is what the normalizer made of one stored payload).
INGEST_ID_COLUMNS: tuple[Column, ...] = tuple(Column(name, kind, (name,), name != "raw_id", int | None)
                                              for name, kind in _INGEST_ONLY.items())
#: Columns of ``jobs`` the store computes when it writes a posting (not posting fields).
DERIVED_JOB_COLUMNS: tuple[Column, ...] = (
    Column("record_hash", "text", (), False, str),
    Column("dedupe_key", "text", (), True, str | None,
           "Postings with the same key are one job listed several times (reposts, cross-posts)."),
)
#: Columns of ``jobs`` the database maintains (ids and lifecycle), read but never written from a posting.
JOB_LIFECYCLE_COLUMNS: tuple[Column, ...] = (
    Column("job_id", "int8", (), False, int, "The job's id in this store (GET /jobs/{job_id})."),
    Column("first_seen_at", "timestamptz", (), False, datetime, "When the pipeline first stored the posting."),
    Column("updated_at", "timestamptz", (), False, datetime, "When a stored field last changed."),
    Column("closed_at", "timestamptz", (), True, datetime | None,
           "When the posting left its source's listing or expired (null while open)."),
    Column("observed_at", "timestamptz", (), True, datetime | None,
           "When the source showed the content this row holds (the start of that fetch run)."),
)

#: Columns of the nested ``salary`` block, in order: what the salary serializer groups.
SALARY_COLUMNS: tuple[Column, ...] = tuple(c for c in POSTING_COLUMNS if c.path[0] == "salary")


# ---------------------------------------------------------------------------------- writing
def to_numeric(value: Any) -> int | Decimal | None:
    """A number for a binary-COPYed ``numeric`` column (which takes int or Decimal, not float).

    Floats keep 15 significant digits, exactly what PostgreSQL's own float8 -> numeric cast keeps.
    """
    if value is None or type(value) is int:
        return value
    if isinstance(value, Decimal):
        return value
    value = float(value)
    return int(value) if value.is_integer() else Decimal(format(value, ".15g"))


def _to_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _to_jsonb(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value)


_WRITE: dict[str, Callable[[Any], Any]] = {"numeric": to_numeric, "int4": _to_int, "int8": _to_int,
                                           "jsonb": _to_jsonb}


class RowBuilder:
    """Builds COPY rows of ``columns`` from postings: one C-level getter, then conversions only
    where a column's type needs one (numbers, JSON). Every posting of a load goes through here."""

    def __init__(self, columns: Sequence[Column]):
        self.columns = tuple(columns)
        self.names = tuple(c.name for c in self.columns)
        self.types = tuple(c.pg_type for c in self.columns)
        getter = operator.attrgetter(*(c.attr for c in self.columns))
        self._get: Callable[[NormalizedPosting], tuple[Any, ...]] = (
            (lambda p: (getter(p),)) if len(self.columns) == 1 else getter)
        self._convert = tuple((i, _WRITE[c.pg_type]) for i, c in enumerate(self.columns) if c.pg_type in _WRITE)

    def __call__(self, posting: NormalizedPosting) -> list[Any]:
        row = list(self._get(posting))
        for i, convert in self._convert:
            row[i] = convert(row[i])
        return row


# ---------------------------------------------------------------------------------- reading
def from_numeric(value: Any) -> float | None:
    """A stored ``numeric`` as the float the dataclass holds."""
    return None if value is None else float(value)


def _from_jsonb(value: Any) -> Any:
    """A stored ``jsonb`` as the dataclass holds it (a row built for COPY holds the Jsonb wrapper)."""
    value = value.obj if isinstance(value, Jsonb) else value
    return {} if value is None else value


_READ: dict[str, Callable[[Any], Any]] = {"numeric": from_numeric, "text[]": lambda v: list(v or []),
                                          "bool": bool, "jsonb": _from_jsonb}
_SALARY_FIELDS = tuple(f.name for f in dataclasses.fields(Salary))


def posting_from_row(row: dict[str, Any]) -> NormalizedPosting:
    """A ``NormalizedPosting`` from a row holding (at least) every posting column by name."""
    plain: dict[str, Any] = {}
    salary: dict[str, Any] = {}
    for c in POSTING_COLUMNS:
        value = row[c.name]
        convert = _READ.get(c.pg_type)
        if convert is not None:
            value = convert(value)
        if len(c.path) == 1:
            plain[c.path[0]] = value
        else:
            salary[c.path[1]] = value
    for name in _INGEST_ONLY:
        if name in row:
            plain[name] = row[name]
    return NormalizedPosting(**plain, salary=Salary(**salary))


def names(columns: Iterable[Column]) -> list[str]:
    return [c.name for c in columns]

"""The normalized-posting contract, enforced at run time with pandera.

Parsers are written to be careful, but a posting only reaches the curated table after this
schema has passed it: a bug in one parser, or a source that changes shape, shows up as
quarantined rows with the names of the checks they failed (lazy validation collects every
failure of every row) instead of silently wrong data in search results.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaErrors

from jobpipe.models import ORIGIN_FIELDS, ORIGINS, NormalizedPosting
from jobpipe.normalize.experience import DEGREES
from jobpipe.normalize.job_type import JOB_TYPES, SENIORITIES
from jobpipe.normalize.location import known_cities
from jobpipe.normalize.salary import KNOWN_CURRENCIES, PERIODS
from jobpipe.normalize.skills import all_skills
from jobpipe.rows import POSTING_COLUMNS

REMOTE_MODES = ("remote", "hybrid", "onsite")
LANGUAGES = ("zh", "en", "ja", "ko")
#: How far in the future a posting date may be (clock skew, time zones) before it is absurd.
FUTURE_TOLERANCE = timedelta(days=2)
EARLIEST = datetime(1990, 1, 1, tzinfo=timezone.utc)

_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.I)
_HASH = re.compile(r"^[0-9a-f]{64}$")


@dataclass
class Rejection:
    """A posting that did not make it: which one, where its raw payload is, and why."""

    external_id: str | None
    raw_id: int | None
    failed_checks: list[str]
    source: str | None = None
    fetch_id: int | None = None


@dataclass
class ValidationResult:
    valid: list[NormalizedPosting] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)

    @property
    def reject_rate(self) -> float:
        total = len(self.valid) + len(self.rejected)
        return len(self.rejected) / total if total else 0.0


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT


def _as_datetime(v: Any) -> datetime | None:
    if _missing(v):
        return None
    if isinstance(v, pd.Timestamp):
        return v.to_pydatetime()
    return v if isinstance(v, datetime) else None


def _sane_date(v: Any, now: datetime) -> bool:
    if _missing(v):
        return True
    dt = _as_datetime(v)
    if dt is None or dt.tzinfo is None:
        return False
    return EARLIEST <= dt <= now + FUTURE_TOLERANCE


def _named(fn: Any, name: str) -> pa.Check:
    """A vectorized check whose failures are reported under ``name``."""
    return pa.Check(fn, name=name, error=name)


def _opt_in(values: Iterable[str]) -> pa.Check:
    allowed = frozenset(values)
    return pa.Check(lambda v: _missing(v) or v in allowed, element_wise=True, name=f"in_{'_'.join(sorted(allowed))[:40]}")


def _not_in_future(now: datetime | Sequence[datetime]) -> pa.Check:
    """``posted_at`` no later than its reference time: one for every row, or one per row (each
    posting's own fetch time, so the verdict on a stored payload never depends on when it runs)."""
    if isinstance(now, datetime):
        at = now
        return pa.Check(lambda v: _sane_date(v, at), element_wise=True, name="posted_at_not_in_future")
    times = list(now)
    # by the row's label: pandera passes only the non-null values of a nullable column
    return pa.Check(lambda s: pd.Series([_sane_date(v, times[i]) for i, v in s.items()], index=s.index, dtype=bool),
                    name="posted_at_not_in_future")


def build_schema(now: datetime | Sequence[datetime] | None = None) -> pa.DataFrameSchema:
    """The DataFrameSchema of one normalized posting per row (salary flattened into salary_* columns).

    ``now``: what a posting date may not be later than (plus a tolerance): one time for every row,
    or one per row in the rows' order (their fetch times); the wall clock when not given.
    """
    now = now or datetime.now(timezone.utc)
    cities = known_cities()
    skills = frozenset(all_skills())
    return pa.DataFrameSchema(
        {
            "source": pa.Column(str, _named(lambda s: s.str.len() > 0, "source_not_empty"), nullable=False),
            "external_id": pa.Column(str, _named(lambda s: s.str.len() > 0, "external_id_not_empty"), nullable=False),
            "title": pa.Column(str, pa.Check(lambda v: isinstance(v, str) and v.strip() != "", element_wise=True,
                                               name="title_not_blank"), nullable=False),
            "company": pa.Column(object, nullable=True),
            "cities": pa.Column(object, pa.Check(lambda v: isinstance(v, list) and all(c in cities for c in v),
                                                 element_wise=True, name="cities_canonical")),
            "country": pa.Column(object, pa.Check(lambda v: _missing(v) or bool(re.fullmatch(r"[A-Z]{2}", str(v))),
                                                  element_wise=True, name="country_iso_alpha2"), nullable=True),
            "remote": pa.Column(object, _opt_in(REMOTE_MODES), nullable=True),
            "job_type": pa.Column(object, _opt_in(JOB_TYPES), nullable=True),
            "seniority": pa.Column(object, _opt_in(SENIORITIES), nullable=True),
            "salary_min": pa.Column(float, _named(lambda s: s > 0, "salary_min_positive"), nullable=True),
            "salary_max": pa.Column(float, _named(lambda s: s > 0, "salary_max_positive"), nullable=True),
            "salary_currency": pa.Column(object, pa.Check(lambda v: _missing(v) or v in KNOWN_CURRENCIES,
                                                          element_wise=True, name="currency_known"), nullable=True),
            "salary_period": pa.Column(object, pa.Check(lambda v: _missing(v) or v in PERIODS,
                                                        element_wise=True, name="period_known"), nullable=True),
            "salary_months": pa.Column(float, _named(lambda s: (s >= 1) & (s <= 24), "months_per_year_1_24"), nullable=True),
            "salary_negotiable": pa.Column(bool),
            "experience_min": pa.Column(float, _named(lambda s: (s >= 0) & (s <= 50), "experience_0_50"), nullable=True),
            "experience_max": pa.Column(float, _named(lambda s: (s >= 0) & (s <= 50), "experience_0_50"), nullable=True),
            "degree": pa.Column(object, _opt_in(DEGREES), nullable=True),
            "skills": pa.Column(object, pa.Check(lambda v: isinstance(v, list) and all(s in skills for s in v),
                                                 element_wise=True, name="skills_canonical")),
            "language": pa.Column(object, _opt_in(LANGUAGES), nullable=True),
            "description_text": pa.Column(str, nullable=False),
            "url": pa.Column(object, pa.Check(lambda v: _missing(v) or bool(_URL.match(str(v))), element_wise=True,
                                              name="url_http"), nullable=True),
            "posted_at": pa.Column(object, _not_in_future(now), nullable=True),
            "valid_through": pa.Column(object, pa.Check(lambda v: _missing(v) or _as_datetime(v) is not None,
                                                        element_wise=True, name="valid_through_datetime"), nullable=True),
            "field_origins": pa.Column(object, pa.Check(
                lambda v: isinstance(v, dict) and all(k in ORIGIN_FIELDS and o in ORIGINS for k, o in v.items()),
                element_wise=True, name="field_origins_known")),
            "content_hash": pa.Column(str, _named(lambda s: s.str.fullmatch(_HASH.pattern), "content_hash_sha256")),
        },
        checks=[
            pa.Check(lambda df: df["salary_min"].isna() | df["salary_max"].isna() | (df["salary_min"] <= df["salary_max"]),
                     name="salary_min_le_max"),
            pa.Check(lambda df: (df["salary_min"].isna() & df["salary_max"].isna()) | df["salary_period"].notna(),
                     name="salary_amount_has_period"),
            pa.Check(lambda df: df["experience_min"].isna() | df["experience_max"].isna()
                     | (df["experience_min"] <= df["experience_max"]), name="experience_min_le_max"),
        ],
        strict=False,
        coerce=False,
    )


#: Frame columns: every stored posting field, flattened as the tables name them (salary_min, ...).
FRAME_COLUMNS: tuple[str, ...] = tuple(c.name for c in POSTING_COLUMNS)
_frame_values = operator.attrgetter(*(c.attr for c in POSTING_COLUMNS))
_NUMBER_COLUMNS = tuple(c.name for c in POSTING_COLUMNS if c.pg_type in ("numeric", "int4"))
_BOOL_COLUMNS = tuple(c.name for c in POSTING_COLUMNS if c.pg_type == "bool")
#: Kept as Python objects (None stays None, lists stay lists, datetimes stay datetimes).
_OBJECT_COLUMNS = tuple(c.name for c in POSTING_COLUMNS
                        if c.pg_type in ("text[]", "timestamptz", "jsonb") or (c.pg_type == "text" and c.optional))


def postings_frame(postings: Sequence[NormalizedPosting]) -> pd.DataFrame:
    frame = pd.DataFrame([_frame_values(p) for p in postings], columns=list(FRAME_COLUMNS))
    for col in _NUMBER_COLUMNS:
        frame[col] = frame[col].map(_float).astype("float64")
    for col in _OBJECT_COLUMNS:
        frame[col] = frame[col].astype(object)
    for col in _BOOL_COLUMNS:
        frame[col] = frame[col].astype(bool)
    return frame


def _float(v: Any) -> float | None:
    if v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def validate_postings(postings: Sequence[NormalizedPosting], *,
                      now: datetime | Sequence[datetime] | None = None) -> ValidationResult:
    """Split postings into those that pass the schema and rejections naming every failed check.

    ``now``: one reference time for every posting, or one per posting (see ``build_schema``).
    """
    postings = list(postings)
    if not postings:
        return ValidationResult()
    frame = postings_frame(postings)
    schema = build_schema(now)
    failed: dict[int, list[str]] = {}
    try:
        schema.validate(frame, lazy=True)
    except SchemaErrors as err:
        cases = err.failure_cases
        for row in cases.itertuples(index=False):
            idx: Any = getattr(row, "index", None)   # a pandas scalar: a label, or NaN/None when not tied to a row
            column = getattr(row, "column", None)
            check = str(getattr(row, "check", ""))
            context = str(getattr(row, "schema_context", ""))
            name = f"{column}:{check}" if context == "Column" and column and not _missing(column) else check
            if _missing(idx):
                # a failure not tied to a row (wrong dtype of a whole column): every row fails it
                for i in range(len(postings)):
                    _add(failed, i, name)
            else:
                _add(failed, int(idx), name)
    result = ValidationResult()
    for i, posting in enumerate(postings):
        if i in failed:
            result.rejected.append(Rejection(posting.external_id, posting.raw_id, failed[i], posting.source, posting.fetch_id))
        else:
            result.valid.append(posting)
    return result


def _add(failed: dict[int, list[str]], i: int, name: str) -> None:
    bucket = failed.setdefault(i, [])
    if name not in bucket:
        bucket.append(name)

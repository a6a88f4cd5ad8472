"""The posting row declared once: the derived column lists must be what the migrated tables hold."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timezone

import pytest

from jobpipe.models import NormalizedPosting, Salary
from jobpipe.normalize.schema import FRAME_COLUMNS
from jobpipe.rows import (
    DERIVED_JOB_COLUMNS,
    INGEST_ID_COLUMNS,
    JOB_LIFECYCLE_COLUMNS,
    POSTING_COLUMNS,
    RowBuilder,
    _columns,
    posting_from_row,
)
from jobpipe.store.jobs import JOB_FIELDS, load_job

_TABLE_COLUMNS = """
SELECT a.attname, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull
FROM pg_attribute a WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
"""


def _table(db, name: str) -> dict[str, tuple[str, bool]]:
    return {n: (t, nullable) for n, t, nullable in db.execute(_TABLE_COLUMNS, (name,))}


def _pg(db, kind: str) -> str:
    return db.execute("SELECT %s::regtype::text", (kind,)).fetchone()[0]


@pytest.mark.parametrize("table, columns", [
    ("normalized_postings", (*POSTING_COLUMNS, *INGEST_ID_COLUMNS)),
    ("jobs", (*POSTING_COLUMNS, *DERIVED_JOB_COLUMNS, *JOB_LIFECYCLE_COLUMNS)),
])
def test_every_declared_column_is_in_the_migrated_table_with_its_type(db, table, columns):
    stored = _table(db, table)
    missing = [c.name for c in columns if c.name not in stored]
    assert not missing, (f"{table} lacks {missing}: a NormalizedPosting field needs a migration adding its column "
                         "(see docs/store.md, 'Adding a field')")
    wrong = {c.name: (stored[c.name][0], _pg(db, c.pg_type)) for c in columns if stored[c.name][0] != _pg(db, c.pg_type)}
    assert not wrong, f"{table}: column types differ from the declaration: {wrong}"
    # a field that may be None must be a nullable column (a NOT NULL one would refuse the row)
    assert not [c.name for c in columns if c.optional and not stored[c.name][1]]


def test_serving_view_holds_every_field_of_the_read_model(db):
    view = _table(db, "serving_jobs")
    fields = [f for f in JOB_FIELDS if f not in ("salary", "status")] + ["salary_min", "salary_months", "closed_at"]
    assert [f for f in fields if f not in view] == []
    assert {"embedding", "embedding_model"} <= set(view)


def test_salary_flattens_into_prefixed_columns_with_the_declared_name():
    names = [c.name for c in POSTING_COLUMNS if c.path[0] == "salary"]
    assert names == ["salary_min", "salary_max", "salary_currency", "salary_period", "salary_months",
                     "salary_negotiable"]
    assert len(names) == len(dataclasses.fields(Salary))
    assert list(FRAME_COLUMNS) == [c.name for c in POSTING_COLUMNS]


def test_a_field_of_an_unmapped_type_fails_loudly(monkeypatch):
    @dataclasses.dataclass
    class Odd:
        weird: complex = 0j

    import jobpipe.rows as rows
    monkeypatch.setattr(rows, "NormalizedPosting", Odd)
    with pytest.raises(TypeError, match=r"Odd\.weird: no column type"):
        _columns()


def _posting(**changes) -> NormalizedPosting:
    base = NormalizedPosting(
        source="s", external_id="1", title="数据工程师", company="Acme", cities=["Beijing", "Shanghai"],
        country="CN", remote="hybrid", job_type="full_time", seniority="senior",
        salary=Salary(min=15000.5, max=25000, currency="CNY", period="month", months_per_year=14),
        salary_annual_min=210007.0, salary_annual_max=350000.0, experience_min=3, experience_max=5,
        degree="bachelor", skills=["Python", "SQL"], language="zh", description_text="做数据",
        url="https://example.com/1", posted_at=datetime(2026, 3, 1, tzinfo=timezone.utc), content_hash="c" * 64,
        raw_id=7, fetch_id=9,
    )
    return dataclasses.replace(base, **changes)


def test_row_builder_and_reader_round_trip_a_posting():
    posting = _posting()
    builder = RowBuilder((*POSTING_COLUMNS, *INGEST_ID_COLUMNS))
    row = dict(zip(builder.names, builder(posting)))
    assert row["salary_months"] == 14 and isinstance(row["salary_months"], int)
    assert str(row["salary_min"]) == "15000.5" and row["salary_max"] == 25000   # numeric takes int or Decimal
    assert posting_from_row(row) == posting


def test_write_normalized_then_load_gives_the_posting_back(db):
    from jobpipe.normalize.schema import ValidationResult
    from jobpipe.normalize.store import load_normalized, write_normalized

    raw_id = db.execute("INSERT INTO raw_postings (source, external_id, format, payload, payload_hash) "
                        "VALUES ('s', '1', 'file', '{}', 'h') RETURNING raw_id").fetchone()[0]
    fetch_id = db.execute("INSERT INTO fetch_runs (source, partition_date, kind, complete) "
                          "VALUES ('s', '2026-03-02', 'file', true) RETURNING fetch_id").fetchone()[0]
    db.execute("INSERT INTO listing_spans (source, external_id, raw_id, payload_hash, from_fetch) "
               "VALUES ('s', '1', %s, 'h', %s)", (raw_id, fetch_id))
    posting = _posting(raw_id=raw_id)
    write_normalized(db, "s", date(2026, 3, 2), ValidationResult(valid=[posting]))
    assert load_normalized(db, "s", date(2026, 3, 2)) == [posting]


def test_the_jobs_read_model_shows_every_field_in_one_shape(db):
    from jobpipe.store import upsert_jobs

    upsert_jobs(db, [_posting()])
    job = load_job(db, "s", "1")
    assert list(job) == list(JOB_FIELDS)
    assert job["salary"] == {"min": 15000.5, "max": 25000, "currency": "CNY", "period": "month",
                             "months_per_year": 14, "negotiable": False}
    assert job["experience_min"] == 3 and isinstance(job["experience_min"], int)
    assert job["status"] == "open" and job["cities"] == ["Beijing", "Shanghai"]
    assert load_job(db, "s", "1", fields=("title", "salary"))["title"] == "数据工程师"
    with pytest.raises(ValueError, match="no field 'nope'"):
        load_job(db, "s", "1", fields=("nope",))

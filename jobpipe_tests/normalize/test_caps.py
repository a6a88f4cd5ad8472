"""Field-size caps at ingestion and implausible salaries: cut or left out, with a note, never stored whole."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timezone

from psycopg.types.json import Jsonb

from jobpipe.models import PostingFields
from jobpipe.normalize import caps, normalize_posting, validate_postings, write_normalized
from jobpipe.store import upsert_jobs
from jobpipe.store.jobs import load_job

NOW = datetime(2026, 3, 10, tzinfo=timezone.utc)


def _normalize(**fields: object):
    base = {"title": "Backend Engineer", "company": "Acme", "location": "Berlin, Germany",
            "description": "We build things with Python."}
    return normalize_posting(PostingFields(**{**base, **fields}), source="caps", external_id="1", fetched_at=NOW)


def test_a_two_million_character_description_is_cut_with_a_note():
    posting = _normalize(description="<p>" + "Python and PostgreSQL all day. " * 64_516 + "Python and</p>")   # 2,000,013 chars
    assert len(posting.description_text) <= caps.DESCRIPTION_CHARS + len(caps.CUT_MARK) + 2
    assert posting.description_text.endswith(caps.CUT_MARK)
    assert posting.description_text.startswith("Python and PostgreSQL all day.")
    assert posting.notes == ["description cut to 50,000 characters (the source's had 2,000,013)"]
    assert "Python" in posting.skills   # the kept part is parsed as usual


def test_a_description_under_the_cap_is_kept_whole_without_a_note():
    text = "Python. " * 5_000   # 40,000 characters
    posting = _normalize(description=text)
    assert posting.description_text == text.strip() and posting.notes == []


def test_long_one_line_fields_are_cut_and_noted():
    posting = _normalize(title="Engineer " * 100_000, company="A" * 10_000, location="Berlin, " * 50_000,
                         locations=["Paris"] * 5_000)
    assert len(posting.title) <= caps.LINE_CHARS["title"]
    assert len(posting.company or "") <= caps.LINE_CHARS["company"]
    assert len(posting.location_raw or "") <= caps.LINE_CHARS["location"]
    assert posting.notes[:3] == ["title cut to 500 characters (the source's had 900,000)",
                                 "company cut to 300 characters (the source's had 10,000)",
                                 "location cut to 2,000 characters (the source's had 400,000)"]
    assert "locations cut to the first 200 of 5,000" in posting.notes


def test_a_url_too_long_to_be_one_is_left_out():
    posting = _normalize(url="https://example.com/" + "a" * 5_000)
    assert posting.url is None and posting.notes == ["url left out: 5,020 characters (at most 2,048)"]


def test_an_absurd_salary_is_left_out_with_a_reason():
    posting = _normalize(salary_text="999999999999k")
    assert posting.salary.min is None and posting.salary.max is None and posting.salary_annual_max is None
    assert posting.notes == ["salary left out: the source states 999,999,999,999,000, too large to be an amount "
                             "of money (a typo or a unit mix-up)"]


def test_a_structured_absurd_salary_is_left_out_with_a_reason():
    posting = _normalize(salary={"currency": "USD", "value": {"minValue": 1e15, "maxValue": 2e15, "unitText": "YEAR"}})
    assert posting.salary.min is None and posting.salary.max is None
    assert len(posting.notes) == 1 and posting.notes[0].startswith("salary left out: the source states")


def test_a_salary_no_job_pays_is_left_out_with_a_reason():
    posting = _normalize(salary_text="$900,000 - $950,000 per hour")
    assert posting.salary.min is None and posting.salary_annual_max is None
    assert posting.notes == ["salary left out: 950,000 USD/hour is about 1,976,000,000 USD a year, more than any "
                             "posting pays (at most 5,000,000 USD a year)"]


def test_real_salaries_keep_their_amounts_and_get_no_note():
    for text, currency in [("15-25K·14薪", "CNY"), ("$120,000 - $150,000 a year", "USD"), ("$300K-$450K", "USD"),
                           ("50-80万/年", "CNY"), ("¥1,200万 - ¥1,800万", "JPY"), ("₩80,000,000", "KRW")]:
        posting = _normalize(salary_text=text, location="Tokyo, Japan" if currency == "JPY" else "Berlin")
        assert posting.salary.max is not None and posting.notes == [], (text, posting.salary, posting.notes)


def test_notes_survive_the_store_and_reach_the_read_model(db):
    raw_id = db.execute("INSERT INTO raw_postings (source, external_id, format, payload, payload_hash) "
                        "VALUES ('caps', '1', 'file', %s, 'caps-1') RETURNING raw_id", (Jsonb({"title": "x"}),)).fetchone()[0]
    db.commit()
    posting = dataclasses.replace(_normalize(description="Python. " * 300_000, salary_text="999999999999k"),
                                  raw_id=raw_id)
    result = validate_postings([posting], now=NOW)
    assert result.valid and not result.rejected
    write_normalized(db, "caps", date(2026, 3, 10), result)
    stored_notes = db.execute("SELECT notes FROM normalized_postings WHERE raw_id = %s", (raw_id,)).fetchone()[0]
    assert stored_notes == posting.notes and len(posting.notes) == 2
    upsert_jobs(db, result.valid)
    job = load_job(db, "caps", "1")
    assert job["notes"] == posting.notes
    assert len(job["description_text"]) < caps.DESCRIPTION_CHARS + 100
    stored = db.execute("SELECT max(length(description_text)) FROM jobs WHERE source = 'caps'").fetchone()[0]
    assert stored < caps.DESCRIPTION_CHARS + 100

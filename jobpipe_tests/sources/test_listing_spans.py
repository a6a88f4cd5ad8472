"""What a fetch run writes: nothing when nothing changed, the changes otherwise, and exact replays."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from jobpipe.models import RawPosting
from jobpipe.sources import load_snapshot, record_fetch
from jobpipe.sources.result import FetchResult
from jobpipe.sources.snapshots import fetch_run, listed_external_ids
from jobpipe_tests.lifecycle import written
from jobpipe_tests.sources.helpers import make_config

DAY = date(2026, 10, 1)
T0 = datetime(2026, 10, 1, 2, tzinfo=timezone.utc)
TABLES = ("raw_postings", "listing_spans", "http_cache", "quarantine", "normalized_postings", "jobs")


def config():  # noqa: ANN201
    return make_config("f", "greenhouse", board="b", base_url="http://127.0.0.1:9")


def posting(i: int, title: str | None = None) -> RawPosting:
    return RawPosting("f", f"j{i}", "greenhouse", {"id": i, "title": title or f"Engineer {i}", "content": "x" * 50})


def fetch(postings: list[RawPosting], day: int = 0, *, complete: bool = True, error: str | None = None) -> FetchResult:
    started = T0 + timedelta(days=day)
    return FetchResult(source="f", kind="greenhouse", postings=postings, complete=complete, error=error,
                       started_at=started, finished_at=started + timedelta(minutes=1))


def day(n: int) -> date:
    return DAY + timedelta(days=n)


def test_an_unchanged_listing_writes_only_its_run_row(db):
    listing = [posting(i) for i in range(50)]
    first = record_fetch(db, config(), day(0), fetch(listing))
    assert (first.fetched, first.new_payloads, first.listed_new) == (50, 50, 50)
    again, stats = written(db, lambda: record_fetch(db, config(), day(1), fetch([posting(i) for i in range(50)], 1)))
    assert again.unchanged and stats == {"fetch_runs": 1}
    summary = record_fetch(db, config(), day(2), fetch(list(reversed(listing)), 2))   # order carries no meaning
    assert summary.unchanged and summary.new_payloads == 0
    assert db.execute("SELECT count(*) FROM listing_spans").fetchone()[0] == 50
    assert [p.external_id for p in load_snapshot(db, "f", day(1)).postings] == [f"j{i}" for i in range(50)]


def test_a_night_with_changes_writes_the_changes_only(db):
    record_fetch(db, config(), day(0), fetch([posting(i) for i in range(20)]))
    night = [posting(i, "Renamed" if i == 3 else None) for i in range(20) if i != 7] + [posting(99)]
    summary, stats = written(db, lambda: record_fetch(db, config(), day(1), fetch(night, 1)))
    assert (summary.listed_new, summary.listed_changed, summary.listed_removed) == (1, 1, 1)
    assert summary.new_payloads == 2
    # 2 payloads; spans: 2 opened + 2 closed (the changed one's old span, the removed one's)
    assert stats == {"fetch_runs": 1, "raw_postings": 2, "listing_spans": 4}
    assert db.execute("SELECT count(*) FROM listing_spans WHERE until_fetch IS NULL").fetchone()[0] == 20
    old, new = load_snapshot(db, "f", day(0)), load_snapshot(db, "f", day(1))
    assert len(old.items) == 20 and len(new.items) == 20
    assert {p.external_id: p.payload["title"] for p in old.postings}["j3"] == "Engineer 3"
    assert {p.external_id: p.payload["title"] for p in new.postings}["j3"] == "Renamed"
    assert "j7" in {p.external_id for p in old.postings} and "j7" not in {p.external_id for p in new.postings}
    assert "j99" in {p.external_id for p in new.postings}


def test_a_payload_that_comes_back_reuses_its_row(db):
    record_fetch(db, config(), day(0), fetch([posting(1)]))
    record_fetch(db, config(), day(1), fetch([posting(1, "B")], 1))
    back = record_fetch(db, config(), day(2), fetch([posting(1)], 2))
    assert back.listed_changed == 1 and back.new_payloads == 0
    assert db.execute("SELECT count(*) FROM raw_postings").fetchone()[0] == 2
    titles = [load_snapshot(db, "f", day(d)).postings[0].payload["title"] for d in range(3)]
    assert titles == ["Engineer 1", "B", "Engineer 1"]


def test_an_incomplete_listing_proves_no_absence_and_replays_as_it_was(db):
    record_fetch(db, config(), day(0), fetch([posting(i) for i in range(10)]))
    partial = record_fetch(db, config(), day(1), fetch([posting(i) for i in range(4)], 1, complete=False,
                                                          error="page 2 failed"))
    assert partial.listed_removed == 0
    assert db.execute("SELECT count(*) FROM listing_spans WHERE until_fetch IS NULL").fetchone()[0] == 10
    run = fetch_run(db, "f", day(1))
    assert run.listed_only == ("j0", "j1", "j2", "j3") and run.unlisted is None   # the shorter list is kept
    assert sorted(listed_external_ids(db, run)) == ["j0", "j1", "j2", "j3"]
    assert len(load_snapshot(db, "f", day(1)).items) == 4
    mostly = record_fetch(db, config(), day(2), fetch([posting(i) for i in range(9)], 2, complete=False, error="x"))
    assert fetch_run(db, "f", day(2)).unlisted == ("j9",) and mostly.listed_removed == 0
    # the next complete listing is compared with the whole state: nothing to write
    assert record_fetch(db, config(), day(3), fetch([posting(i) for i in range(10)], 3)).unchanged


def test_a_short_unconfirmed_listing_closes_no_span(db):
    record_fetch(db, config(), day(0), fetch([posting(i) for i in range(10)]))
    result = fetch([posting(i) for i in range(5)], 1)
    result.listing.doubts.append("page 3 was empty in the middle of the listing")
    summary = record_fetch(db, config(), day(1), result)
    assert summary.listed_removed == 0 and fetch_run(db, "f", day(1)).unlisted == ("j5", "j6", "j7", "j8", "j9")
    assert db.execute("SELECT count(*) FROM listing_spans WHERE until_fetch IS NULL").fetchone()[0] == 10


def test_duplicates_in_a_listing_keep_the_last_payload(db):
    summary = record_fetch(db, config(), day(0), fetch([posting(1, "first"), posting(2), posting(1, "last")]))
    assert summary.fetched == 2 and summary.new_payloads == 2
    assert {p.external_id: p.payload["title"] for p in load_snapshot(db, "f", day(0)).postings}["j1"] == "last"


def test_a_file_dropped_again_unchanged_is_not_parsed(db, tmp_path):
    from jobpipe.sources import run_source
    from jobpipe_tests.lifecycle import FileSource, row

    source = FileSource(tmp_path)
    first = source.fetch(db, [row(i) for i in range(30)], 0)
    assert first.not_modified == 0 and first.fetched == 30
    again, stats = written(db, lambda: source.fetch(db, [row(i) for i in range(30)], 1))
    assert again.not_modified == 1 and again.unchanged and again.fetched == 30 and stats == {"fetch_runs": 1}
    assert len(load_snapshot(db, source.name, day(1)).items) == 30
    changed = source.fetch(db, [row(i) for i in range(29)], 2)
    assert changed.not_modified == 0 and changed.listed_removed == 1
    # a file with a bad line is never remembered: it is read whole every time
    source.path.write_text("".join(__import__("json").dumps(row(i)) + "\n" for i in range(29)) + "{oops\n")
    assert run_source(db, source.config, day(3)).not_modified == 0
    assert run_source(db, source.config, day(4)).not_modified == 0


def test_an_unchanged_file_whose_state_moved_is_read_again(db, tmp_path):
    from jobpipe.sources import run_source
    from jobpipe_tests.lifecycle import FileSource, row

    source = FileSource(tmp_path)
    source.fetch(db, [row(i) for i in range(5)], 0)
    db.execute("DELETE FROM listing_spans WHERE external_id = 'p4'")   # the state no longer is that listing
    db.commit()
    summary = run_source(db, source.config, day(1))
    assert summary.not_modified == 0 and summary.listed_new == 1
    assert db.execute("SELECT count(*) FROM listing_spans WHERE until_fetch IS NULL").fetchone()[0] == 5

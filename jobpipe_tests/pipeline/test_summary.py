"""The stages' typed results: their flat form round-trips, and the run summary is built from them."""

from __future__ import annotations

from dataclasses import fields
from datetime import date

import pytest

from jobpipe.pipeline.candidates import CandidateVectorsOutcome, MatchOutcome, ProfileOutcome
from jobpipe.pipeline.ingest import CurateOutcome, FetchOutcome, NormalizeOutcome
from jobpipe.pipeline.summary import (
    COUNT_KEYS,
    CandidatesSummary,
    RunError,
    RunSummary,
    SourceSummary,
    format_summary,
)
from jobpipe.pipeline.vectors import EmbedOutcome, IndexOutcome, ServingOutcome

EXAMPLES = [
    FetchOutcome(fetch_id=7, fetched=12, complete=True, new_payloads=3, requests=4, not_modified=2, quarantined=1,
                 quarantine_sample=["postings.jsonl line 3: not JSON"]),
    NormalizeOutcome(passed=11, rejected=1, reject_rate=0.0833, threshold=0.05, failed_checks={"title": 1}),
    CurateOutcome(inserted=2, updated=1, unchanged=8, closed=1, would_close=1, close_reason="ok", max_share=0.3),
    EmbedOutcome(embedded=3, pending_before=3, model="m", dims=8, active_model="m", by_source={"a": 3}),
    IndexOutcome(indexes=[{"name": "i", "model": "m", "valid": True}], built_now=1,
                 recall={"m": {"unfiltered": 1.0, "filtered": 0.97}}, worst_recall=0.97),
    ServingOutcome(open_jobs=10, with_vector=9, closed_jobs=1, active_model="m", duplicate_groups=0),
    ProfileOutcome(profiled=2, deleted=1, quarantined=1, candidates=2), CandidateVectorsOutcome(embedded=2, models="m"),
    MatchOutcome(recomputed=2, full=2, rows_written=40, model="m"),
]


@pytest.mark.parametrize("outcome", EXAMPLES, ids=lambda o: type(o).__name__)
def test_a_result_is_its_metadata(outcome):
    metadata = outcome.as_metadata()
    assert set(metadata) == {f.name for f in fields(outcome)}
    assert type(outcome).from_metadata(metadata) == outcome
    assert type(outcome).from_metadata({**metadata, "added_by_a_later_version": 1}) == outcome


def test_the_summary_counts_and_checks_come_from_the_stage_results():
    ok = SourceSummary("a", fetch=EXAMPLES[0], normalize=EXAMPLES[1], curate=EXAMPLES[2], embedded=3)
    assert ok.counts() == {"fetched": 12, "inserted": 2, "updated": 1, "unchanged": 8, "rejected": 2, "closed": 1,
                           "embedded": 3}   # rejected: 1 quarantined at fetch + 1 failed validation
    assert ok.checks_failed == ["normalized_postings:reject_rate_below_threshold"]
    refused = SourceSummary("b", fetch=FetchOutcome(fetched=2, complete=True), normalize=NormalizeOutcome(passed=2),
                            curate=CurateOutcome(unchanged=2, would_close=8, close_refused=True,
                                                 close_reason="refused: 8 of 10"))
    assert refused.checks_failed == ["curated_jobs:close_guard"]
    failed = SourceSummary("c", error="source 'c' failed: HTTP 404")
    summary = RunSummary(day=date(2026, 3, 2), sources={"a": ok, "b": refused, "c": failed},
                         embedding=EXAMPLES[3], index=EXAMPLES[4], serving=EXAMPLES[5],
                         candidates=CandidatesSummary(EXAMPLES[6], EXAMPLES[7], EXAMPLES[8]))
    assert summary.totals["fetched"] == 14 and summary.totals["embedded"] == 3
    assert not summary.ok and summary.downstream_ok
    assert summary.downstream_error == " failed checks: serving_jobs:every_open_job_searchable"
    # one line per failed stage or ERROR check, naming the source, the share and what to do
    a_line, b_line, c_line = summary.problems
    assert a_line.startswith("a: 1 of 12 postings rejected (8.3% > threshold 5%)") and "quarantine" in a_line
    assert b_line.startswith("b: close guard refused to close 8") and "jobpipe sources accept-close b" in b_line
    assert c_line == "source 'c': source 'c' failed: HTTP 404"
    assert not RunSummary(day=date(2026, 3, 2), sources={"a": ok}).ok   # a failed ERROR check alone: not ok
    assert not RunSummary(day=date(2026, 3, 2), sources={"b": refused}).ok
    with pytest.raises(RunError) as raised:
        summary.raise_for_errors()
    assert raised.value.summary is summary and "HTTP 404" in str(raised.value)

    out = summary.to_json()
    assert set(out["sources"]["a"]) == {*COUNT_KEYS, "complete", "ok", "error", "checks_failed", "listing_unconfirmed",
                                         "close_refusal", "problems"}
    assert out["sources"]["b"]["close_refusal"] == "refused: 8 of 10" and out["sources"]["a"]["close_refusal"] is None
    assert out["index"][-1] == {"recall_at_10": {"m": {"unfiltered": 1.0, "filtered": 0.97}}}
    assert out["serving"]["with_vector"] == 9 and out["candidates"] == {
        "profiled": 2, "embedded": 2, "recomputed": 2, "deleted": 1, "quarantined": 1}
    assert RunSummary(day=date(2026, 3, 2)).to_json()["candidates"] == {
        "profiled": 0, "embedded": 0, "recomputed": 0, "deleted": 0, "quarantined": 0}
    text = format_summary(summary)
    assert "FAILED: source 'c' failed: HTTP 404" in text and "failed checks: curated_jobs:close_guard" in text
    # the guard's reason is printed, not only the check's name (it was only in the Dagster event log)
    assert [line for line in text.splitlines() if line.startswith("b ")][0].endswith(
        "ok; refused: 8 of 10; failed checks: curated_jobs:close_guard")
    assert "recall@10 vs exact: unfiltered 1.000, filtered 0.970" in text
    assert "candidates: 2 profiled, 2 embedded, 2 match lists recomputed, 1 deleted, 1 files quarantined" in text

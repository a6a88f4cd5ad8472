"""remote=true matches only jobs stated to be remote: a benefits line is not enough (field_origins)."""

from __future__ import annotations

from datetime import datetime, timezone

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting
from jobpipe.search import SearchFilters, search
from jobpipe.store import sync_job_terms, upsert_jobs

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def _posting(external_id: str, title: str, description: str, location: str | None = "上海"):
    return normalize_posting(PostingFields(title=title, location=location, description=description),
                             source="test", external_id=external_id, fetched_at=NOW)


def test_remote_filter_takes_stated_remote_only(db):
    postings = [
        _posting("stated", "后端工程师", "负责后端开发。本岗位支持远程办公。"),
        _posting("title", "后端工程师（远程）", "负责后端开发。", location=None),
        _posting("perk", "后端工程师", "负责后端开发。\n福利：远程办公补贴，五险一金"),
        _posting("onsite", "后端工程师", "负责后端开发。本岗位需要坐班，不支持远程。"),
    ]
    assert [p.field_origins.get("remote") for p in postings] == ["description", "title", "inferred", "description"]
    assert postings[2].remote == "remote"   # the value as read; its origin keeps it out of the filter
    upsert_jobs(db, postings)
    sync_job_terms(db, workers=0)
    db.commit()

    def ids(remote: bool) -> set[str]:
        found = search(db, "后端工程师", SearchFilters(remote=remote), mode="keyword", top_k=10)
        return {r.external_id for r in found.results}

    assert ids(True) == {"stated", "title"}
    assert ids(False) == {"perk", "onsite"}
    stored = db.execute("SELECT field_origins FROM jobs WHERE external_id = 'perk'").fetchone()[0]
    assert stored["remote"] == "inferred"

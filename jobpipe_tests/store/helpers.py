"""Small synthetic postings for store tests (own fixtures, same shape as normalized output)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

from jobpipe.models import NormalizedPosting, Salary

_TITLES = ["Backend Engineer", "数据分析师", "Frontend Developer", "机器学习工程师", "Product Manager", "运维工程师"]
_CITIES = ["Beijing", "Shanghai", "Shenzhen", "San Francisco", "Singapore", "Hangzhou"]
_SKILLS = [["python", "postgresql"], ["sql", "excel"], ["react", "typescript"], ["pytorch"], ["roadmaps"], ["linux", "k8s"]]


def make_posting(i: int, source: str = "board", **changes: object) -> NormalizedPosting:
    posting = NormalizedPosting(
        source=source,
        external_id=f"{source}-{i}",
        title=f"{_TITLES[i % len(_TITLES)]} {i}",
        company=f"Company {i % 7} Ltd.",
        location_raw=_CITIES[i % len(_CITIES)],
        cities=[_CITIES[i % len(_CITIES)]],
        country="CN",
        job_type="full_time",
        salary=Salary(min=10000 + i, max=20000 + i, currency="CNY", period="month", months_per_year=13),
        salary_annual_min=(10000 + i) * 13.0,
        skills=list(_SKILLS[i % len(_SKILLS)]),
        language="en",
        description_text=f"Posting number {i}. We build things with {' and '.join(_SKILLS[i % len(_SKILLS)])}.",
        url=f"https://jobs.example.com/{source}/{i}",
        posted_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
    )
    return replace(posting, **changes) if changes else posting


def make_postings(n: int, source: str = "board", start: int = 0) -> list[NormalizedPosting]:
    return [make_posting(i, source) for i in range(start, start + n)]


def gin_pending_pages(db, table: str) -> dict[str, int]:
    """Pages in the pending list of each GIN index on ``table`` (read by merging them)."""
    rows = db.execute("SELECT c.relname, gin_clean_pending_list(c.oid) FROM pg_index i "
                      "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                      "WHERE a.amname = 'gin' AND i.indrelid = %s::regclass ORDER BY 1", (table,)).fetchall()
    db.commit()
    return dict(rows)

"""Jobs and candidates through the real store path (upsert, terms, vectors, HNSW index) for matching tests."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime, timezone

import psycopg

from jobpipe.candidates import CandidatePreferences, CandidateRecord, parse_resume, upsert_candidate
from jobpipe.models import NormalizedPosting, Salary
from jobpipe.store import (
    ensure_vector_index,
    sync_candidate_embeddings,
    sync_job_embeddings,
    sync_job_terms,
    upsert_jobs,
)
from jobpipe.store.closing import close_missing  # noqa: F401 - re-exported for tests
from jobpipe_tests.service.support import HashEmbedder

CITIES = ["Beijing", "Shanghai", "Shenzhen", "San Francisco", "Berlin", "London"]
COUNTRY = {"Beijing": "CN", "Shanghai": "CN", "Shenzhen": "CN", "San Francisco": "US", "Berlin": "DE", "London": "GB"}
SKILLS = ["Python", "Go", "Java", "React", "TypeScript", "PostgreSQL", "Kubernetes", "PyTorch", "SQL", "Spark",
          "Docker", "Redis"]
TITLES = ["Backend Engineer", "Frontend Developer", "Data Engineer", "Machine Learning Engineer", "SRE",
          "后端开发工程师", "数据分析师", "算法工程师"]


def posting(external_id: str, title: str, *, skills: list[str], cities: list[str] | None = None, remote: str | None = None,
            job_type: str | None = "full_time", company: str = "Acme", salary_year: float | None = None,
            currency: str = "USD", seniority: str | None = None, experience_min: float | None = None,
            description: str | None = None, source: str = "board") -> NormalizedPosting:
    cities = list(cities if cities is not None else ["Berlin"])
    return NormalizedPosting(
        source=source, external_id=external_id, title=title, company=company, location_raw=", ".join(cities) or None,
        cities=cities, country=COUNTRY.get(cities[0]) if cities else None, remote=remote, job_type=job_type,
        seniority=seniority, salary=Salary(min=salary_year, max=salary_year, currency=currency, period="year")
        if salary_year else Salary(), salary_annual_min=salary_year, salary_annual_max=salary_year,
        experience_min=experience_min, skills=list(skills), language="en",
        description_text=description or f"{title}. We use {', '.join(skills)}.",
        url=f"https://jobs.example.com/{external_id}", posted_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
    )


def random_postings(n: int, seed: int = 7, start: int = 0) -> list[NormalizedPosting]:
    rng = random.Random(seed)
    out = []
    for i in range(start, start + n):
        title = rng.choice(TITLES)
        skills = rng.sample(SKILLS, rng.randint(1, 4))
        nice = rng.choice([None, rng.choice(SKILLS)])
        description = f"{title} building products. Requirements: {', '.join(skills)}."
        if nice and nice not in skills:
            skills.append(nice)
            description += f"\nNice to have:\n- {nice}"
        remote = rng.choice([None, "remote", "onsite", "hybrid"])
        cities = [] if remote == "remote" and rng.random() < 0.5 else [rng.choice(CITIES)]
        out.append(posting(f"r-{i}", f"{title} {i % 13}", skills=skills, cities=cities, remote=remote,
                           job_type=rng.choice(["full_time", "full_time", "intern", "contract", None]),
                           company=rng.choice(["Acme", "Globex", "Initech", "Umbrella", "星辰科技"]),
                           salary_year=rng.choice([None, 60000, 120000, 200000]), description=description,
                           experience_min=rng.choice([None, 1, 3, 5]),
                           seniority=rng.choice([None, "junior", "senior", "lead"])))
    return out


def load(conn: psycopg.Connection, postings: list[NormalizedPosting], embedder: HashEmbedder | None = None) -> dict[str, int]:
    """Upsert, terms, vectors (the embedder's model becomes active), HNSW index; external_id -> job_id."""
    embedder = embedder or HashEmbedder()
    upsert_jobs(conn, postings)
    sync_job_terms(conn, workers=0)
    sync_job_embeddings(conn, embedder)
    ensure_vector_index(conn, embedder.model, embedder.dims)
    return dict(conn.execute("SELECT external_id, job_id FROM jobs").fetchall())


def close(conn: psycopg.Connection, *external_ids: str) -> None:
    conn.execute("UPDATE jobs SET closed_at = now() WHERE external_id = ANY(%s)", (list(external_ids),))
    conn.commit()


def change(postings: list[NormalizedPosting], external_id: str, **fields: object) -> list[NormalizedPosting]:
    return [replace(p, content_hash="", **fields) if p.external_id == external_id else p for p in postings]


def add_candidate(conn: psycopg.Connection, candidate_id: str, text: str, prefs: dict | None = None,
                  embedder: HashEmbedder | None = None, origin: str = "cli") -> None:
    record = CandidateRecord(parse_resume(candidate_id, text), CandidatePreferences.parse(prefs or {}), origin=origin)
    upsert_candidate(conn, record)
    conn.commit()
    sync_candidate_embeddings(conn, embedder or HashEmbedder())


def visible(conn: psycopg.Connection, candidate_id: str, top_n: int = 50) -> list[tuple[str, float]]:
    return [(ext, round(score, 2)) for ext, score in conn.execute(
        "SELECT j.external_id, m.score FROM candidate_matches m JOIN jobs j USING (job_id) WHERE m.candidate_id = %s "
        "ORDER BY m.score DESC, m.job_id LIMIT %s", (candidate_id, top_n))]


def snapshot_matches_open_jobs(conn: psycopg.Connection) -> bool:
    """The refresh's job snapshot (``candidate_match_jobs``) is exactly the open jobs with a vector of
    the active model, each at its current record hash (every job here is embedded, none stale)."""
    snapshot = dict(conn.execute("SELECT job_id, record_hash FROM candidate_match_jobs").fetchall())
    open_jobs = dict(conn.execute(
        "SELECT j.job_id, j.record_hash FROM jobs j JOIN job_embeddings e ON e.job_id = j.job_id "
        "JOIN embedding_models m ON m.model = e.model AND m.state = 'active' WHERE j.closed_at IS NULL").fetchall())
    return bool(open_jobs) and snapshot == open_jobs


RESUMES = {
    "py": "Ana Lima\nSenior Backend Engineer\nSkills: Python, PostgreSQL, Docker, Redis\n2016 - present Backend Engineer",
    "fe": "Bo Chen\nFrontend Developer\nSkills: React, TypeScript\n2021 - present Frontend Developer at a studio",
    "ml": "Cy Diaz\nMachine Learning Engineer\nSkills: Python, PyTorch, Spark, SQL\n2019 - present ML Engineer",
    "zh": "李明\n求职意向：后端开发工程师\n技能：Java、Go、Kubernetes\n2018.07 - 至今 某公司 后端开发工程师",
}

"""Match speed: a full build of every candidate's list, then the refresh after one night.

    python bench/bench_candidates_speed.py [--jobs 100000] [--candidates 10000] [--dims 64]
        [--changed-jobs 0.05] [--edited-candidates 0.01] [--reads 1000]

Synthetic postings (titles, skills, cities, remote, job types, salaries, companies, duplicate
copies across two sources) go through the real store path (upsert, vectors, HNSW index);
synthetic resumes through the resume parser and the candidate store. Vectors come from the
offline token-hash embedder (``--dims``), so the figures measure jobpipe's matching, not a
model. Printed: the full build (``refresh_matches(full=True)``), then a night in which
``--changed-jobs`` of the open jobs changed (half edited, a quarter closed, a quarter new) and
``--edited-candidates`` of the resumes were edited, and the refresh after it, as seconds and as
a share of the full build (target <= 10%), and the server-side time of reading one stored list
(``read_matches``, what ``GET /candidates/{id}/matches`` runs; target p50 <= 5 ms).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobpipe.candidates import CandidatePreferences, CandidateRecord, parse_resume, read_matches, upsert_candidate  # noqa: E402
from jobpipe.candidates.matching import refresh_matches  # noqa: E402
from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.embedding import TokenHashEmbedder  # noqa: E402
from jobpipe.models import NormalizedPosting, Salary  # noqa: E402
from jobpipe.store import ensure_vector_index, sync_candidate_embeddings, sync_job_embeddings, upsert_jobs  # noqa: E402

CITIES = [("Beijing", "CN"), ("Shanghai", "CN"), ("Shenzhen", "CN"), ("Hangzhou", "CN"), ("San Francisco", "US"),
          ("New York", "US"), ("Berlin", "DE"), ("London", "GB"), ("Singapore", "SG")]
SKILLS = ["Python", "Go", "Java", "React", "TypeScript", "PostgreSQL", "Kubernetes", "PyTorch", "SQL", "Spark",
          "Docker", "Redis", "Kafka", "AWS", "C++", "Rust", "TensorFlow", "Vue", "Node.js", "Flink"]
TITLES = ["Backend Engineer", "Frontend Developer", "Data Engineer", "Machine Learning Engineer", "SRE",
          "Data Scientist", "Full Stack Developer", "DevOps Engineer", "后端开发工程师", "数据分析师", "算法工程师",
          "前端开发工程师", "测试开发工程师"]
COMPANIES = [f"Company {i}" for i in range(400)] + ["星辰科技", "云图数据", "Acme", "Globex"]


def fresh_database(name: str) -> str:
    base = database_url()
    with psycopg.connect(with_database(base, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    migrate(url)
    return url


def posting(rng: random.Random, i: int, source: str = "board") -> NormalizedPosting:
    title = rng.choice(TITLES)
    skills = rng.sample(SKILLS, rng.randint(2, 6))
    remote = rng.choice([None, None, "remote", "onsite", "hybrid"])
    city, country = rng.choice(CITIES)
    cities = [] if remote == "remote" and rng.random() < 0.5 else [city]
    salary = rng.choice([None, None, 60000, 120000, 200000, 400000])
    description = f"{title} building products. Requirements: {', '.join(skills[:-1])}."
    description += f"\nNice to have:\n- {skills[-1]}"
    return NormalizedPosting(
        source=source, external_id=f"s-{i}", title=f"{title} {i % 17}", company=rng.choice(COMPANIES),
        location_raw=", ".join(cities) or None, cities=cities, country=country if cities else None, remote=remote,
        job_type=rng.choice(["full_time", "full_time", "full_time", "intern", "contract", None]),
        seniority=rng.choice([None, "junior", "mid", "senior", "lead"]),
        salary=Salary(min=salary, max=salary, currency="USD", period="year") if salary else Salary(),
        salary_annual_min=salary, salary_annual_max=salary, experience_min=rng.choice([None, 1, 3, 5]),
        skills=skills, language="en", description_text=description,
        url=f"https://jobs.example.com/{source}/{i}", posted_at=datetime(2026, 11, 1, tzinfo=timezone.utc))


def resume(rng: random.Random, i: int, edit: int = 0) -> tuple[str, dict]:
    title = rng.choice(TITLES)
    city, _ = rng.choice(CITIES)
    skills = rng.sample(SKILLS, rng.randint(3, 7))
    start = rng.randint(2008, 2023)
    text = (f"Person {i}\n{title}\nLocation: {city}\nSkills: {', '.join(skills)}\n"
            f"Experience\n{start} - present {title} at {rng.choice(COMPANIES)}\n"
            f"Built services with {', '.join(skills[:3])}." + (f"\nAlso learned {SKILLS[edit % len(SKILLS)]}." if edit else ""))
    prefs: dict = {}
    roll = rng.random()
    if roll < 0.2:
        prefs = {"cities": [city], "remote": True}
    elif roll < 0.3:
        prefs = {"job_types": ["full_time"], "salary_min": 100000, "currency": "USD"}
    elif roll < 0.35:
        prefs = {"cities": [city]}
    return text, prefs


def timed(label: str, fn, *args, **kwargs):
    started = time.perf_counter()
    out = fn(*args, **kwargs)
    seconds = time.perf_counter() - started
    print(f"  {label}: {seconds:.1f} s", flush=True)
    return out, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--candidates", type=int, default=10_000)
    parser.add_argument("--dims", type=int, default=64)
    parser.add_argument("--changed-jobs", type=float, default=0.05)
    parser.add_argument("--edited-candidates", type=float, default=0.01)
    parser.add_argument("--reads", type=int, default=1000)
    parser.add_argument("--top-n", type=int, default=50)
    args = parser.parse_args()

    rng = random.Random(14)
    embedder = TokenHashEmbedder(args.dims)
    url = fresh_database("jobpipe_bench_candidates_speed")
    print(f"{args.jobs:,} synthetic jobs x {args.candidates:,} synthetic candidates, {embedder.model} "
          f"({args.dims} dims), top {args.top_n} + reserve per candidate")
    with connect(url) as conn:
        print("set-up (not part of the figures):")
        # one in 20 postings is a cross-posted copy of another on a second source (a duplicate group)
        postings = [posting(rng, i) for i in range(args.jobs)]
        copies = [replace(p, source="mirror", url=p.url + "?via=mirror", content_hash="")
                  for p in rng.sample(postings, args.jobs // 20)]
        timed("upsert jobs", upsert_jobs, conn, postings + copies)
        timed("embed jobs", sync_job_embeddings, conn, embedder)
        timed("HNSW index", ensure_vector_index, conn, embedder.model, embedder.dims)
        resumes = [resume(rng, i) for i in range(args.candidates)]

        def add_all() -> None:
            for i, (text, prefs) in enumerate(resumes):
                upsert_candidate(conn, CandidateRecord(parse_resume(f"c-{i}", text), CandidatePreferences.parse(prefs),
                                                       origin="cli"))
            conn.commit()

        timed("profile candidates", add_all)
        timed("embed candidates", sync_candidate_embeddings, conn, embedder)
        conn.execute("ANALYZE")
        conn.commit()

        print("full build:")
        full, full_s = timed("refresh_matches(full=True)", refresh_matches, conn, top_n=args.top_n, full=True)
        rows = conn.execute("SELECT count(*) FROM candidate_matches").fetchone()[0]
        print(f"  {full.full:,} lists, {rows:,} rows, {full_s / max(full.full, 1) * 1000:.1f} ms per candidate")

        print("the night (not part of the figures):")
        n_changed = int(args.jobs * args.changed_jobs)
        open_ids = [r[0] for r in conn.execute("SELECT external_id FROM jobs WHERE source = 'board'")]
        picked = rng.sample(open_ids, n_changed)
        edited = set(picked[: n_changed // 2])
        closed = picked[n_changed // 2: n_changed // 2 + n_changed // 4]
        new = [posting(rng, args.jobs + i) for i in range(n_changed - len(edited) - len(closed))]
        by_id = {p.external_id: p for p in postings}
        changes = [replace(by_id[e], skills=[*by_id[e].skills[1:], rng.choice(SKILLS)], title=by_id[e].title + " II",
                           content_hash="") for e in edited]
        timed(f"upsert {len(changes):,} edited + {len(new):,} new jobs", upsert_jobs, conn, changes + new)
        conn.execute("UPDATE jobs SET closed_at = now() WHERE source = 'board' AND external_id = ANY(%s)", (closed,))
        conn.commit()
        timed("embed changed jobs", sync_job_embeddings, conn, embedder)
        n_edit = int(args.candidates * args.edited_candidates)

        def edit_some() -> None:
            for i in rng.sample(range(args.candidates), n_edit):
                text, prefs = resume(random.Random(i), i, edit=i + 1)
                upsert_candidate(conn, CandidateRecord(parse_resume(f"c-{i}", text), CandidatePreferences.parse(prefs),
                                                       origin="cli"))
            conn.commit()

        timed(f"edit {n_edit:,} candidates", edit_some)
        timed("embed edited candidates", sync_candidate_embeddings, conn, embedder)

        print("refresh after the night:")
        night, night_s = timed("refresh_matches()", refresh_matches, conn, top_n=args.top_n)
        print(f"  {night.full:,} lists in full, {night.partial:,} in part; {night.jobs_touched:,} jobs touched, "
              f"{night.jobs_gone:,} gone; {night.rows_written:,} rows written, {night.rows_removed:,} removed")
        print(f"refresh / full build: {night_s:.1f} s / {full_s:.1f} s = {night_s / full_s:.1%} (target <= 10%)")

        ids = [f"c-{i}" for i in rng.sample(range(args.candidates), min(args.reads, args.candidates))]
        times = []
        for cid in ids:
            started = time.perf_counter()
            read_matches(conn, cid, top_k=10, top_n=args.top_n)
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        print(f"read one stored list (read_matches, top 10), {len(times):,} candidates: p50 "
              f"{statistics.median(times):.2f} ms, p95 {times[int(len(times) * 0.95) - 1]:.2f} ms (target p50 <= 5 ms)")


if __name__ == "__main__":
    main()

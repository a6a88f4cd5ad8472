"""The nightly path, fetch of a file drop through embedding, against a first load and its peers.

    python bench/bench_nightly.py                       # 100k postings: the issue-13 targets
    python bench/bench_nightly.py --n 20000 --no-peers
    python bench/bench_nightly.py --scale 20000,100000,300000 --no-peers   # per-stage CPU vs N

Workload (the same for every contender): a JSONL file drop of N synthetic postings (half
Chinese, ~1 KB descriptions). Night 1 loads it into an empty database; night 2 has 5% of the
postings edited inside the embedding text (description), 5% edited outside it (salary text,
URL) and 2% removed; night 3 is night 2's file again (an unchanged night). Each contender runs
in its own throw-away database on the configured server, with a near-free counting embedder
(hash-seeded 64-d vectors): times measure the pipeline, counts show what a real model would
have to embed.

Between two nights the database settles outside the measurement (VACUUM (ANALYZE) and a
CHECKPOINT: what autovacuum does in the day between two real nights). Printed per night and
stage: wall seconds, CPU seconds of this process and its children (the
keyword tokenizer workers) and of the database server (every backend, parallel worker and
background process of the server, from /proc), row versions written per table
(pg_stat_user_tables), WAL bytes and database growth. Contenders:

* jobpipe: the stage functions (``run_source`` on a file-kind source, ``normalize_fetch``,
  ``curate_fetch`` = upsert + keyword terms + closing, ``sync_job_embeddings``, retention);
* a hand-written row-by-row sync: per line a hash of the raw line compared with the stored one;
  changed lines are normalized with jobpipe's normalizer and upserted one statement at a time
  with their keyword tsvector, changed texts embedded and their vector upserted; vanished ids deleted;
* LangChain's indexing API (``langchain_core.indexing.index`` with ``SQLRecordManager`` and the
  PGVector store of ``langchain_community``; ``langchain-postgres`` pins a pgvector older than
  jobpipe's), when it is installed (``pip install -e '.[bench-peers]'``):
  documents built by jobpipe's normalizer from every line, with their keyword terms (jieba
  tokens, as the other two compute them) in the metadata -- PGVector has no full-text column --,
  ``cleanup="full"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import CITIES, EN_SENTENCES, SKILLS, TITLES_EN, TITLES_ZH, ZH_SENTENCES  # noqa: E402

from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.embedding.base import l2_normalize  # noqa: E402

DAY1 = date(2026, 11, 2)


# ------------------------------------------------------------------------------------ workload
def make_rows(n: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        zh = i % 2 == 0
        description = " ".join(rng.choice(ZH_SENTENCES if zh else EN_SENTENCES) for _ in range(rng.randint(8, 16)))
        low = rng.randrange(10, 60)
        rows.append({
            "id": f"job-{i}",
            "title": f"{rng.choice(TITLES_ZH if zh else TITLES_EN)} {i % 997}",
            "company": f"Company {rng.randrange(3000)} {'有限公司' if zh else 'Inc.'}",
            "location": rng.choice(CITIES),
            "salary": f"{low}-{low * 2}K·13薪" if zh else f"${low},000 - ${low * 2},000 a year",
            "employment_type": rng.choice(["全职", "Full-time", "实习", "Contract"]),
            "description": description + f" Skills: {', '.join(rng.sample(SKILLS, 3))}. (ref {i})",
            "url": f"https://jobs.example.com/{i}",
            "posted_at": f"2026-10-{1 + i % 28:02d}",
        })
    return rows


def night2(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str], set[str], set[str]]:
    """5% content edits, 5% metadata edits, 2% removed (disjoint, spread over the file)."""
    n = len(rows)
    content = set(range(0, n, 20))
    metadata = set(range(1, n, 20))
    removed = set(range(2, n, 50)) - content - metadata
    out = []
    for i, r in enumerate(rows):
        if i in removed:
            continue
        if i in content:
            r = {**r, "description": r["description"] + " Updated: on-call rotation added."}
        elif i in metadata:
            r = {**r, "url": r["url"] + "?v=2", "salary": r["salary"].replace("-", " - ")}
        out.append(r)
    ids = lambda s: {rows[i]["id"] for i in s}  # noqa: E731
    return out, ids(content), ids(metadata), ids(removed)


def write_file(path: Path, rows: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


class CountingEmbedder:
    """Hash-seeded unit vectors (deterministic per text, near-free) that count what was embedded."""

    dims = 64
    model = "bench-counting-64"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        rows = [np.random.default_rng(int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little"))
                .standard_normal(self.dims) for t in texts]
        return l2_normalize(np.array(rows, dtype=np.float32))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_documents(texts)


# ------------------------------------------------------------------------------------ measuring
def _proc_cpu(pid: int, children: bool = False) -> float:
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def server_cpu(conn: psycopg.Connection) -> float:
    """CPU seconds of the whole server: the postmaster (with its exited children) and every live child."""
    data_dir = conn.execute("SHOW data_directory").fetchone()[0]
    try:
        postmaster = int(open(Path(data_dir) / "postmaster.pid").readline())
    except OSError:
        return float("nan")
    total = _proc_cpu(postmaster, children=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == postmaster:
                total += _proc_cpu(int(entry))
    return total


def client_cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


_VERSIONS = "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables"


def table_versions(url: str) -> dict[str, int]:
    time.sleep(1.1)   # backends flush their statistics at most once a second
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        return dict(conn.execute(_VERSIONS).fetchall())


def wal_lsn(conn: psycopg.Connection) -> int:
    return int(conn.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0])


def db_size(conn: psycopg.Connection) -> int:
    return conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]


@dataclass
class Stage:
    name: str
    wall: float = 0.0
    client: float = 0.0
    server: float = 0.0
    note: str = ""

    @property
    def cpu(self) -> float:
        return self.client + self.server


@dataclass
class Night:
    label: str
    stages: list[Stage] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    wal: int = 0
    growth: int = 0
    counts: dict[str, Any] = field(default_factory=dict)

    @property
    def wall(self) -> float:
        return sum(s.wall for s in self.stages)

    @property
    def cpu(self) -> float:
        return sum(s.cpu for s in self.stages)


def measure_night(url: str, label: str, stages: list[tuple[str, Callable[[psycopg.Connection], str]]]) -> Night:
    """Run ``stages`` (name, fn(conn) -> note) each on a fresh connection; measure each and the night."""
    night = Night(label)
    with psycopg.connect(url, autocommit=True) as probe:
        before_versions = table_versions(url)
        wal0, size0 = wal_lsn(probe), db_size(probe)
        for name, fn in stages:
            c0, s0, t0 = client_cpu(), server_cpu(probe), time.perf_counter()
            with connect(url) as conn:
                note = fn(conn) or ""
            wall = time.perf_counter() - t0
            night.stages.append(Stage(name, wall, client_cpu() - c0, server_cpu(probe) - s0, note))
        probe.execute("CHECKPOINT")
        night.wal, night.growth = wal_lsn(probe) - wal0, db_size(probe) - size0
    after = table_versions(url)
    night.versions = {t: after.get(t, 0) - before_versions.get(t, 0) for t in after}
    return night


def settle(url: str) -> None:
    """Between two nights: what 24 hours of autovacuum and checkpoints do, outside the measurement
    (VACUUM (ANALYZE) and a CHECKPOINT), so a night's WAL and CPU are its own, not the vacuuming
    of the night before. Every contender gets the same."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
        conn.execute("CHECKPOINT")


def fresh_database(label: str) -> tuple[str, str]:
    base = database_url()
    name = f"jobpipe_bench_{label}_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = with_database(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    migrate(url)
    return url, admin


def drop_database(url: str, admin: str) -> None:
    name = url.split("?")[0].rsplit("/", 1)[1]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ------------------------------------------------------------------------------------ jobpipe
def jobpipe_nights(url: str, files: list[Path], workdir: Path, embedder: CountingEmbedder) -> list[Night]:
    from jobpipe.normalize.store import normalize_fetch
    from jobpipe.sources import run_source
    from jobpipe.sources.config import parse_sources
    from jobpipe.sources.retention import prune_snapshots
    from jobpipe.store import sync_job_embeddings
    from jobpipe.store.curate import curate_fetch

    drop = workdir / "drop.jsonl"
    drop.touch()
    (config,) = parse_sources({"sources": [{"name": "drop", "kind": "file", "path": drop.name}]},
                              workdir / "sources.yaml")
    nights = []
    for k, path in enumerate(files):
        day = DAY1 + timedelta(days=k)
        drop.write_bytes(path.read_bytes())
        embedded_before = len(embedder.texts)

        def fetch(conn, day=day):
            s = run_source(conn, config, day)
            return f"listed {s.fetched}: new {s.listed_new}, changed {s.listed_changed}, removed {s.listed_removed}"

        def normalize(conn, day=day):
            c = normalize_fetch(conn, "drop", day)
            return f"{c.mode}: normalized {c.normalized}, rows written {c.written}"

        def curate(conn, day=day):
            c = curate_fetch(conn, "drop", day)
            return (f"upserted {c.candidates}: inserted {c.upsert.inserted}, updated {c.upsert.updated}; "
                    f"terms {c.terms.computed}; closed {c.closed}")

        def embed(conn):
            c = sync_job_embeddings(conn, embedder, batch_size=256)
            return f"embedded {c.embedded}"

        def retention(conn, day=day):
            p = prune_snapshots(conn, keep_days=30, today=day)
            return f"pruned {p.fetch_runs} runs, {p.payloads} payloads"

        night = measure_night(url, f"night {k + 1}", [("fetch", fetch), ("normalize", normalize), ("curate", curate),
                                                       ("embed", embed), ("retention", retention)])
        night.counts = {"embedded": len(embedder.texts) - embedded_before}
        settle(url)
        with psycopg.connect(url) as conn:
            night.counts["closed"] = conn.execute("SELECT count(*) FROM jobs WHERE closed_at IS NOT NULL").fetchone()[0]
            night.counts["normalized"] = int(night.stages[1].note.split("normalized ")[1].split(",")[0])
        nights.append(night)
    return nights


# ------------------------------------------------------------------------------------ row-by-row peer
_PEER_SCHEMA = """
CREATE TABLE peer_jobs (
    external_id text PRIMARY KEY, raw_hash text NOT NULL, content_hash text NOT NULL,
    title text, company text, cities text[], job_type text, remote text, salary_min numeric, salary_max numeric,
    salary_currency text, skills text[], description_text text, url text, posted_at timestamptz,
    search_tsv tsvector, embedding vector(64));
CREATE INDEX peer_jobs_tsv ON peer_jobs USING gin (search_tsv);
"""
_PEER_UPSERT = """
INSERT INTO peer_jobs (external_id, raw_hash, content_hash, title, company, cities, job_type, remote, salary_min,
                       salary_max, salary_currency, skills, description_text, url, posted_at, search_tsv)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, to_tsvector('simple', %s))
ON CONFLICT (external_id) DO UPDATE SET raw_hash = EXCLUDED.raw_hash, content_hash = EXCLUDED.content_hash,
    title = EXCLUDED.title, company = EXCLUDED.company, cities = EXCLUDED.cities, job_type = EXCLUDED.job_type,
    remote = EXCLUDED.remote, salary_min = EXCLUDED.salary_min, salary_max = EXCLUDED.salary_max,
    salary_currency = EXCLUDED.salary_currency, skills = EXCLUDED.skills, description_text = EXCLUDED.description_text,
    url = EXCLUDED.url, posted_at = EXCLUDED.posted_at,
    search_tsv = CASE WHEN peer_jobs.content_hash = EXCLUDED.content_hash THEN peer_jobs.search_tsv
                      ELSE EXCLUDED.search_tsv END
"""


def _normalize_line(line: str):
    from datetime import datetime, timezone

    from jobpipe.normalize import normalize_posting
    from jobpipe.sources import extract

    record = json.loads(line)
    payload = {k: v for k, v in record.items() if k != "id"} | {"external_id": record["id"]}
    return normalize_posting(extract("file", payload), source="peer", external_id=record["id"],
                             fetched_at=datetime.now(timezone.utc))


def rowbyrow_nights(url: str, files: list[Path], embedder: CountingEmbedder) -> list[Night]:
    from pgvector.psycopg import register_vector

    from jobpipe.hashing import embedding_text
    from jobpipe.store.terms import search_text
    from jobpipe.text.tokenize import tokenize

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(_PEER_SCHEMA)
    nights = []
    for k, path in enumerate(files):
        counts = {"embedded": 0, "normalized": 0}

        def sync(conn, path=path, counts=counts):
            register_vector(conn)
            known = dict(conn.execute("SELECT external_id, raw_hash || ' ' || content_hash FROM peer_jobs"))
            seen = set()
            with open(path, encoding="utf-8") as handle:
                for n, line in enumerate(handle, 1):
                    raw = hashlib.sha256(line.encode()).hexdigest()
                    external_id = json.loads(line)["id"]
                    seen.add(external_id)
                    stored = known.get(external_id)
                    if stored is not None and stored.split()[0] == raw:
                        continue
                    p = _normalize_line(line)
                    counts["normalized"] += 1
                    tokens = " ".join(tokenize(search_text(p.title, p.company, p.cities, p.skills, p.description_text)))
                    conn.execute(_PEER_UPSERT, (external_id, raw, p.content_hash, p.title, p.company, p.cities,
                                                p.job_type, p.remote, p.salary.min, p.salary.max, p.salary.currency,
                                                p.skills, p.description_text, p.url, p.posted_at, tokens))
                    if stored is None or stored.split()[1] != p.content_hash:
                        vector = embedder.embed_documents([embedding_text(p)])[0]
                        conn.execute("UPDATE peer_jobs SET embedding = %s WHERE external_id = %s", (vector, external_id))
                        counts["embedded"] += 1
                    if n % 1000 == 0:
                        conn.commit()
            gone = [e for e in known if e not in seen]
            if gone:
                conn.execute("DELETE FROM peer_jobs WHERE external_id = ANY(%s)", (gone,))
            conn.commit()
            return f"normalized {counts['normalized']}, embedded {counts['embedded']}, deleted {len(gone)}"

        night = measure_night(url, f"night {k + 1}", [("sync", sync)])
        night.counts = counts
        settle(url)
        nights.append(night)
    return nights


# ------------------------------------------------------------------------------------ LangChain peer
def langchain_available() -> str | None:
    try:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import langchain_core  # noqa: F401
            from langchain_classic.indexes import SQLRecordManager  # noqa: F401
            from langchain_community.vectorstores.pgvector import PGVector  # noqa: F401
    except ImportError as exc:
        return str(exc)
    return None


def langchain_nights(url: str, files: list[Path], embedder: CountingEmbedder) -> list[Night]:
    import warnings

    from langchain_classic.indexes import SQLRecordManager
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.indexing import index

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.vectorstores.pgvector import PGVector

    from jobpipe.hashing import embedding_text
    from jobpipe.store.terms import search_text
    from jobpipe.text.tokenize import tokenize

    class Wrapped(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embedder.embed_documents(texts).tolist()

        def embed_query(self, text: str) -> list[float]:
            return embedder.embed_documents([text])[0].tolist()

    sa_url = url.replace("postgresql://", "postgresql+psycopg2://", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store = PGVector(connection_string=sa_url, embedding_function=Wrapped(), collection_name="jobs",
                         use_jsonb=True, create_extension=False)
    records = SQLRecordManager("pgvector/jobs", db_url=sa_url)
    records.create_schema()

    def documents(path: Path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                p = _normalize_line(line)
                yield Document(page_content=embedding_text(p), metadata={
                    "source": "drop", "external_id": p.external_id, "title": p.title, "company": p.company,
                    "cities": p.cities, "job_type": p.job_type, "remote": p.remote, "salary_min": p.salary.min,
                    "salary_max": p.salary.max, "salary_currency": p.salary.currency, "skills": p.skills,
                    "url": p.url, "posted_at": p.posted_at.isoformat() if p.posted_at else None,
                    # keyword terms, as the other two keep them: PGVector has no full-text column of its own
                    "search_terms": " ".join(tokenize(search_text(p.title, p.company, p.cities, p.skills,
                                                                  p.description_text)))}, id=p.external_id)

    nights = []
    for k, path in enumerate(files):
        before = len(embedder.texts)

        def sync(conn, path=path):
            result = index(documents(path), records, store, cleanup="full", source_id_key="source",
                           key_encoder="sha256", batch_size=500)
            return (f"added {result['num_added']}, updated {result['num_updated']}, skipped {result['num_skipped']}, "
                    f"deleted {result['num_deleted']}")

        night = measure_night(url, f"night {k + 1}", [("index", sync)])
        night.counts = {"embedded": len(embedder.texts) - before, "normalized": sum(1 for _ in open(path))}
        settle(url)
        nights.append(night)
    return nights


# ------------------------------------------------------------------------------------ printing
def print_nights(title: str, nights: list[Night], n: int) -> None:
    print(f"\n== {title}")
    for night in nights:
        print(f"  {night.label}: wall {night.wall:.2f} s, CPU {night.cpu:.2f} s "
              f"(client {sum(s.client for s in night.stages):.2f} + server {sum(s.server for s in night.stages):.2f}); "
              f"WAL {night.wal / 1e6:.2f} MB, database growth {night.growth / 1e6:.2f} MB")
        for s in night.stages:
            print(f"    {s.name:<10} wall {s.wall:7.2f} s  CPU {s.cpu:7.2f} s (client {s.client:6.2f} + server "
                  f"{s.server:6.2f})  {s.cpu / n * 1e6:6.1f} us/posting  {s.note}")
        written = {t: v for t, v in sorted(night.versions.items()) if v}
        print("    row versions written: " + (", ".join(f"{t} {v:,}" for t, v in written.items()) or "none"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--scale", type=str, default="", help="comma-separated sizes: first loads only, per-stage CPU")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {database_url().split('?')[0]}")
    if args.scale:
        scale([int(x) for x in args.scale.split(",")])
        return
    n = args.n
    rows = make_rows(n)
    edited, content, metadata, removed = night2(rows)
    with tempfile.TemporaryDirectory(prefix="jobpipe-bench-") as tmp:
        workdir = Path(tmp)
        files = [workdir / "night1.jsonl", workdir / "night2.jsonl", workdir / "night3.jsonl"]
        write_file(files[0], rows)
        write_file(files[1], edited)
        write_file(files[2], edited)
        print(f"{n:,} postings, file {files[0].stat().st_size / 1e6:.0f} MB; night 2: {len(content):,} content edits, "
              f"{len(metadata):,} metadata edits, {len(removed):,} removed; night 3 = night 2's file again")
        results: dict[str, list[Night]] = {}
        url, admin = fresh_database("nightly")
        try:
            embedder = CountingEmbedder()
            results["jobpipe"] = jobpipe_nights(url, files, workdir, embedder)
            print_nights("jobpipe (stage functions)", results["jobpipe"], n)
            with psycopg.connect(url) as conn:
                embedded2 = set(embedder.texts[n:n + results["jobpipe"][1].counts["embedded"]])
                got = {r[0] for r in conn.execute("SELECT external_id, title, company, cities, skills, description_text "
                                                   "FROM jobs") if _text(r) in embedded2}
        finally:
            drop_database(url, admin)
        if not args.no_peers:
            url, admin = fresh_database("rowbyrow")
            try:
                results["row-by-row"] = rowbyrow_nights(url, files, CountingEmbedder())
                print_nights("hand-written row-by-row sync", results["row-by-row"], n)
            finally:
                drop_database(url, admin)
            missing = langchain_available()
            if missing:
                print(f"\n== LangChain indexing API: not installed ({missing}); pip install -e '.[bench-peers]'")
            else:
                url, admin = fresh_database("langchain")
                try:
                    results["langchain"] = langchain_nights(url, files, CountingEmbedder())
                    print_nights("LangChain indexing API (SQLRecordManager + PGVector)", results["langchain"], n)
                finally:
                    drop_database(url, admin)
    summary(results, n, content, removed, got)


def _text(row: tuple) -> str:
    from jobpipe.hashing import embedding_text
    from jobpipe.models import NormalizedPosting

    return embedding_text(NormalizedPosting("", "", row[1], company=row[2], cities=row[3], skills=row[4],
                                            description_text=row[5]))


def summary(results: dict[str, list[Night]], n: int, content: set[str], removed: set[str], embedded_ids: set[str]) -> None:
    ours = results["jobpipe"]
    first, day2, again = ours
    print("\n== targets (issue 13)")
    print(f"  unchanged night (night 3) vs first load: CPU {again.cpu:.2f} / {first.cpu:.2f} s = "
          f"{again.cpu / first.cpu:.2%}, wall {again.wall:.2f} / {first.wall:.2f} s = {again.wall / first.wall:.2%} "
          "(target <= 3% each)")
    written = {t: v for t, v in sorted(again.versions.items()) if v}
    print(f"  unchanged night row versions: {written or 'none'} (target: 0 outside the run log, fetch_runs)")
    print(f"  unchanged night WAL {again.wal / 1e6:.2f} MB (target <= 5), database growth {again.growth / 1e6:.2f} MB "
          "(target <= 1)")
    print(f"  night 2: embedded {day2.counts['embedded']:,} = content edits {len(content):,}: "
          f"{day2.counts['embedded'] == len(content)} (same postings: {embedded_ids == content}); "
          f"closed {day2.counts['closed']:,} = removed {len(removed):,}: {day2.counts['closed'] == len(removed)}; "
          f"normalized {day2.counts['normalized']:,} = the 10% edited ({n // 10:,}): "
          f"{day2.counts['normalized'] == len(content) * 2}")
    peers = {k: v for k, v in results.items() if k != "jobpipe"}
    if peers:
        print("\n  first load CPU (normalization and keyword terms included), and the other nights:")
        print(f"    {'contender':<12}{'night 1':>12}{'night 2':>12}{'night 3':>12}{'embedded 1/2/3':>24}")
        for name, nights in results.items():
            print(f"    {name:<12}" + "".join(f"{x.cpu:>10.1f} s" for x in nights)
                  + f"{'/'.join(str(x.counts['embedded']) for x in nights):>24}")
        leanest = min(peers, key=lambda k: peers[k][0].cpu)
        print(f"  first load CPU vs the leanest peer ({leanest}): {first.cpu / peers[leanest][0].cpu:.2f}x "
              "(target <= 1.3x)")


def scale(sizes: list[int]) -> None:
    """First loads at several sizes: per-stage CPU per posting should stay flat (linear cost)."""
    table: dict[int, Night] = {}
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="jobpipe-bench-") as tmp:
            workdir = Path(tmp)
            path = workdir / "night1.jsonl"
            write_file(path, make_rows(n))
            url, admin = fresh_database("scale")
            try:
                (night,) = jobpipe_nights(url, [path], workdir, CountingEmbedder())
            finally:
                drop_database(url, admin)
        table[n] = night
        print_nights(f"first load, {n:,} postings", [night], n)
    print("\n== per-stage CPU per posting (us) on first loads; linear = flat across a row")
    names = [s.name for s in next(iter(table.values())).stages]
    print(f"  {'postings':>9}" + "".join(f"{name:>12}" for name in names) + f"{'total':>12}")
    for n, night in table.items():
        print(f"  {n:>9,}" + "".join(f"{s.cpu / n * 1e6:>12.1f}" for s in night.stages) + f"{night.cpu / n * 1e6:>12.1f}")
    smallest, largest = min(table), max(table)
    ratio = (table[largest].cpu / largest) / (table[smallest].cpu / smallest)
    print(f"  CPU per posting at {largest:,} / at {smallest:,}: {ratio:.2f} (1.00 = linear)")


if __name__ == "__main__":
    main()

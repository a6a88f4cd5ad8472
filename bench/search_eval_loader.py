"""Load ../shared/data/eval/postings.jsonl into a database for the search benchmarks.

Uses the real stages when they are importable (``jobpipe.normalize.normalize_posting``,
``jobpipe.store.upsert_jobs``); otherwise minimal private stand-ins that map the eval
records straight to ``jobs`` rows, so search can be measured before the other stages land. Corpus vectors are cached on disk outside the repo
(``$TMPDIR/jobpipe_search_bench``) keyed by model and text, so re-runs cost no CPU.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from jobpipe.hashing import content_hash, embedding_text
from jobpipe.models import NormalizedPosting, PostingFields
from jobpipe.search.resolve import bilingual_city_names, resolve_city

CACHE_DIR = Path(tempfile.gettempdir()) / "jobpipe_search_bench"


# ---------------------------------------------------------------- embedder
def get_embedder() -> Any:
    """The project's default embedder when available, else USE-multilingual (fast, 512d)."""
    try:
        from jobpipe.embedding import get_embedder as project_embedder  # type: ignore[attr-defined]

        return project_embedder()
    except (ImportError, AttributeError):
        from jobpipe.embedding.local import UseM3Embedder

        return UseM3Embedder()


def cached_document_vectors(embedder: Any, texts: list[str], batch: int = 64) -> np.ndarray:
    """Vectors for ``texts``, computing only those not already in the on-disk cache."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"docs_{re.sub(r'[^A-Za-z0-9_.-]', '_', embedder.model)}.npz"
    cache: dict[str, np.ndarray] = {}
    if path.exists():
        data = np.load(path)
        cache = dict(zip(data["keys"].tolist(), data["vectors"]))
    keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    missing = [i for i, k in enumerate(keys) if k not in cache]
    for start in range(0, len(missing), batch):
        chunk = missing[start:start + batch]
        vectors = embedder.embed_documents([texts[i] for i in chunk])
        for i, v in zip(chunk, vectors):
            cache[keys[i]] = np.asarray(v, dtype=np.float32)
        if (start // batch) % 10 == 9 or start + batch >= len(missing):
            # Written aside and renamed: a second bench reading the cache meanwhile sees a whole file.
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, keys=np.array(list(cache)), vectors=np.stack(list(cache.values())))
            os.replace(tmp, path)
            print(f"  embedded {min(start + batch, len(missing))}/{len(missing)}", flush=True)
    return np.stack([cache[k] for k in keys]) if keys else np.zeros((0, embedder.dims), np.float32)


# ---------------------------------------------------------------- private normalizer (fallback)
_TAG = re.compile(r"<[^>]+>")
_MD = re.compile(r"[#*_`>|\[\]]+")
_SPLIT_LOC = re.compile(r"[/,，、;；|()（）\s\-–]+")


def _clean(text: str | None) -> str:
    text = html.unescape(_TAG.sub(" ", text or ""))
    return re.sub(r"\s+", " ", _MD.sub(" ", text)).strip()


def _cities(location: str | None) -> list[str]:
    if not location:
        return []
    found: list[str] = []
    for part in _SPLIT_LOC.split(location):
        city = resolve_city(part) if part else None
        if city and city not in found:
            found.append(city)
    lowered = location.lower()
    for alias, city in bilingual_city_names().items():
        if len(alias) >= 2 and alias in lowered and city not in found:
            found.append(city)
    if not found:   # "Albuquerque, NM" -> keep the first part as the city name
        head = location.split(",")[0].strip()
        if head and head.isascii() and len(head) < 40:
            found.append(head.title() if head.islower() else head)
    return found


def _job_type(kind: str | None, title: str) -> str | None:
    text = f"{kind or ''} {title}".lower()
    if "实习" in text or "intern" in text:
        return "intern"
    if "校招" in text or "届" in title or "应届" in text or "campus" in text:
        return "campus"
    if "兼职" in text or "part" in text:
        return "part_time"
    if "contract" in text or "外包" in text:
        return "contract"
    if kind or text.strip():
        return "full_time" if kind else None
    return None


def _remote(*texts: str | None) -> str | None:
    head = " ".join(t for t in texts if t).lower()
    if re.search(r"远程|remote|居家|在家办公|分布式办公|telecommute", head):
        return "remote"
    return None


def _posted(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def private_normalize(record: dict[str, Any]) -> NormalizedPosting:
    title = _clean(record.get("title")) or "(untitled)"
    description = _clean(record.get("description"))
    posting = NormalizedPosting(
        source=f"eval_{record['origin']}",
        external_id=record["id"],
        title=title,
        company=record.get("company"),
        location_raw=record.get("location"),
        cities=_cities(record.get("location")),
        remote=_remote(record.get("location"), title, description[:300]),
        job_type=_job_type(record.get("employment_type_text"), title),
        description_text=description,
        url=record.get("url"),
        posted_at=_posted(record.get("posted_at")),
        language="zh" if re.search(r"[\u4e00-\u9fff]", title + description[:200]) else "en",
    )
    posting.content_hash = content_hash(posting)
    return posting


# ---------------------------------------------------------------- public entry point
_FETCHED_AT = datetime(2025, 7, 1, tzinfo=timezone.utc)   # fixed: relative dates resolve the same every run


def _normalizer() -> Any:
    try:
        from jobpipe.normalize import normalize_posting  # type: ignore[import-not-found]
    except ImportError:
        return None
    return normalize_posting


def normalize_records(records: list[dict[str, Any]]) -> tuple[list[NormalizedPosting], str]:
    """The normalizer's postings when it is importable, else the private fallback's."""
    normalize_posting = _normalizer()
    if normalize_posting is None:
        return [private_normalize(r) for r in records], "private normalizer"
    postings = []
    for r in records:
        fields = PostingFields(title=r.get("title"), company=r.get("company"), location=r.get("location"),
                               salary_text=r.get("salary_text"), employment_type=r.get("employment_type_text"),
                               description=r.get("description"), url=r.get("url"), posted_at=r.get("posted_at"))
        postings.append(normalize_posting(fields, source=f"eval_{r['origin']}", external_id=r["id"],
                                          fetched_at=_FETCHED_AT))
    return postings, "jobpipe.normalize"


def load_eval_corpus(conn: psycopg.Connection, postings_path: Path, embedder: Any) -> tuple[dict[int, str], str]:
    """Load the corpus and its vectors; return job_id -> eval id, and which stages ran."""
    records = [json.loads(line) for line in postings_path.read_text(encoding="utf-8").split("\n") if line.strip()]
    postings, normalizer = normalize_records(records)
    from jobpipe.store import sync_job_terms, upsert_jobs

    upsert_jobs(conn, postings)
    sync_job_terms(conn)
    conn.commit()
    ids = {(s, e): i for i, s, e in conn.execute("SELECT job_id, source, external_id FROM jobs")}
    store = "jobpipe.store.upsert_jobs + sync_job_terms"
    by_job = {ids[(p.source, p.external_id)]: p for p in postings if (p.source, p.external_id) in ids}
    job_ids = list(by_job)
    # Vectors from the on-disk cache, stored with each posting's content hash: the store's
    # sync (when present) then finds nothing stale and spends no CPU re-embedding.
    vectors = cached_document_vectors(embedder, [embedding_text(by_job[j]) for j in job_ids])
    _insert_vectors(conn, embedder, job_ids, [by_job[j].content_hash for j in job_ids], vectors)
    return {j: by_job[j].external_id for j in job_ids}, f"{normalizer} + {store}"


def _insert_vectors(conn, embedder, job_ids, hashes, vectors) -> None:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    conn.execute(
        "INSERT INTO embedding_models (model, dims, state, activated_at) VALUES (%s, %s, 'active', now())",
        (embedder.model, embedder.dims),
    )
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) VALUES (%s, %s, %s, %s, %s)",
            [(j, embedder.model, embedder.dims, h, np.asarray(v, np.float32)) for j, h, v in zip(job_ids, hashes, vectors)],
        )
    conn.commit()


def build_vector_index(conn: psycopg.Connection, model: str, dims: int) -> None:
    """The store's per-model partial HNSW index, in the exact form search expects."""
    from jobpipe.store.index import _create_sql, index_name

    if conn.execute("SELECT to_regclass(%s) IS NULL", (index_name(model, dims),)).fetchone()[0]:
        conn.execute(_create_sql(index_name(model, dims), model, dims, 16, 64, concurrently=False))
    conn.execute("ANALYZE jobs")
    conn.execute("ANALYZE job_terms")
    conn.execute("ANALYZE job_embeddings")
    conn.commit()

"""Fixture postings and a deterministic test embedder for the search tests."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import psycopg

from jobpipe.store.term_lists import merge_term_lists
from jobpipe.store.terms import sync_job_terms
from jobpipe.text.tokenize import tokenize

MODEL = "test-concepts-64"
DIMS = 64

# Words the test embedder treats as one meaning, across languages: the keyword leg does
# not know these pairs, so only the vector leg can connect them.
_CONCEPTS = {"宠物": "pet", "pet": "pet", "veterinary": "pet", "兽医": "pet", "animal": "pet", "动物": "pet"}


class ConceptEmbedder:
    """Bag of concepts hashed into 64 dims: deterministic, instant, bilingual for a few words."""

    model = MODEL
    dims = DIMS

    def __init__(self) -> None:
        self.query_calls = 0

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(DIMS, dtype=np.float32)
        for token in tokenize(text):
            concept = _CONCEPTS.get(token, token)
            vector[int(hashlib.md5(concept.encode()).hexdigest(), 16) % DIMS] += 1.0
        norm = np.linalg.norm(vector)
        if norm == 0:
            vector[0] = 1.0
            norm = 1.0
        return vector / norm

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        self.query_calls += 1
        return np.stack([self._vector(t) for t in texts])


def insert_job(conn: psycopg.Connection, external_id: str, title: str, *, source: str = "test", description: str = "",
               company: str | None = None, cities: list[str] | None = None, job_type: str | None = None,
               remote: str | None = None, skills: list[str] | None = None, salary: dict[str, Any] | None = None,
               posted_days_ago: float | None = None, closed: bool = False, dedupe_key: str | None = None) -> int:
    salary = salary or {}
    posted_at = None if posted_days_ago is None else datetime.now(timezone.utc) - timedelta(days=posted_days_ago)
    row = conn.execute(
        """INSERT INTO jobs (source, external_id, title, company, cities, job_type, remote, skills,
               salary_min, salary_max, salary_currency, salary_period, salary_annual_min, salary_annual_max,
               description_text, posted_at, content_hash, record_hash, dedupe_key, closed_at)
           VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,'h','r',%s, CASE WHEN %s THEN now() END)
           RETURNING job_id""",
        (source, external_id, title, company, cities or [], job_type, remote, skills or [],
         salary.get("min"), salary.get("max"), salary.get("currency"), salary.get("period"),
         salary.get("annual_min"), salary.get("annual_max"), description, posted_at, dedupe_key, closed),
    ).fetchone()
    sync_job_terms(conn, workers=0)   # the store's own keyword terms for the new row
    merge_term_lists(conn)            # and the keyword leg's posting lists, as the night's index stage does
    return int(row[0])


def activate_model(conn: psycopg.Connection, model: str = MODEL, dims: int = DIMS) -> None:
    conn.execute("INSERT INTO embedding_models (model, dims, state, activated_at) VALUES (%s, %s, 'active', now())",
                 (model, dims))


def embed_jobs(conn: psycopg.Connection, embedder: ConceptEmbedder, vectors: dict[int, np.ndarray] | None = None) -> None:
    """Vectors for every job (from title + description unless given), plus the HNSW index."""
    rows = conn.execute("SELECT job_id, title, description_text FROM jobs ORDER BY job_id").fetchall()
    vectors = vectors or {}
    for job_id, title, description in rows:
        vector = vectors.get(job_id)
        if vector is None:
            vector = embedder.embed_documents([f"{title}\n{description}"])[0]
        conn.execute(
            "INSERT INTO job_embeddings (job_id, model, dims, content_hash, embedding) VALUES (%s, %s, %s, 'h', %s)",
            (job_id, embedder.model, embedder.dims, np.asarray(vector, dtype=np.float32)),
        )
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS embeddings_half_hnsw_test ON job_embeddings USING hnsw "
        f"((l2_normalize(embedding::vector({DIMS}))::halfvec({DIMS})) halfvec_cosine_ops) WHERE model = '{MODEL}'"
    )
    conn.commit()


def embedded(conn: psycopg.Connection) -> ConceptEmbedder:
    """The test model activated and every posting embedded with it: the embedder to search with."""
    embedder = ConceptEmbedder()
    activate_model(conn)
    embed_jobs(conn, embedder)
    return embedder

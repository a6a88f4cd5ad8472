"""Rank jobs for a candidate: vector similarity, then skill overlap as evidence.

Retrieval is by vector only (the candidate's resume vector against job vectors of the
active model, filters applied in SQL), because a resume is far too long and varied to be
a keyword query. The retrieved pool is then re-scored with skill overlap, which is what a
recruiter checks first and what makes "matched / missing skills" explainable:

    fused = VECTOR_WEIGHT * vector_similarity + SKILL_WEIGHT * skill_overlap

``skill_overlap`` is the share of the job's listed skills the candidate has (0 when the
job lists none: no evidence is no bonus).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from jobpipe.candidates.models import CandidateProfile, MatchResult
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.types import SearchFilters
from jobpipe.store.jobs import load_jobs
from jobpipe.store.models import active_model

VECTOR_WEIGHT = 0.7
SKILL_WEIGHT = 0.3
#: How many vector neighbours are re-scored per requested result.
POOL_FACTOR = 5
MIN_POOL = 50
MAX_POOL = 500


class MatchError(LookupError):
    """The match cannot be computed (no active model, wrong embedder...); the message says why."""


class UnknownCandidateError(MatchError):
    """No candidate has this id."""


def candidate_embedding_text(profile: CandidateProfile) -> str:
    """The text a candidate vector is computed from: exactly what the embedding stage uses for
    stored candidates (headline, skills, resume head), so ad-hoc and stored vectors agree."""
    from jobpipe.store.vectors import candidate_text

    return candidate_text((profile.headline, profile.skills, profile.resume_text))


def _active_model(conn: psycopg.Connection) -> tuple[str, int]:
    info = active_model(conn)
    if info is None:
        raise MatchError("no active embedding model: run the pipeline to embed jobs first")
    return info.model, info.dims


def _vector_literal(vector: Sequence[float]) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vector) + "]"


#: What a match shows of a job (the read model's names).
_MATCH_FIELDS = ("job_id", "source", "external_id", "title", "company", "cities", "salary", "url", "posted_at",
                 "skills")


def _nearest_jobs(conn: psycopg.Connection, vector: Sequence[float], model: str, dims: int,
                  filters: SearchFilters, limit: int) -> list[dict[str, Any]]:
    """Open (or filtered) jobs nearest to ``vector``, with their cosine similarity."""
    filt = build_filter_sql(filters)
    distance = sql.SQL("(e.embedding::vector({dims})) <=> %(qvec)s::vector({dims})").format(dims=sql.Literal(dims))
    query = sql.SQL("""
        SELECT j.job_id, 1 - ({distance}) AS similarity
        FROM job_embeddings e JOIN jobs j ON j.job_id = e.job_id
        WHERE e.model = {model} AND ({where})
        ORDER BY {distance}
        LIMIT %(limit)s
    """).format(distance=distance, model=sql.Literal(model), where=sql.SQL(filt.where))
    params = {**filt.params, "qvec": _vector_literal(vector), "limit": limit}
    with conn.transaction():
        # Filters must not starve the ANN scan: keep scanning the graph until LIMIT rows pass.
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(min(1000, max(100, limit)))))
        nearest = conn.execute(query, params).fetchall()
    jobs = load_jobs(conn, [job_id for job_id, _ in nearest], _MATCH_FIELDS)
    return [jobs[job_id] | {"similarity": similarity} for job_id, similarity in nearest if job_id in jobs]


def score_jobs(rows: list[dict[str, Any]], candidate_skills: Sequence[str], top_k: int) -> list[MatchResult]:
    """Re-score vector neighbours with skill overlap; best first."""
    have = {s.lower() for s in candidate_skills}
    results = []
    for row in rows:
        job_skills = list(dict.fromkeys(row["skills"] or []))
        matched = [s for s in job_skills if s.lower() in have]
        missing = [s for s in job_skills if s.lower() not in have]
        overlap = len(matched) / len(job_skills) if job_skills else 0.0
        similarity = float(row["similarity"])
        fused = VECTOR_WEIGHT * similarity + SKILL_WEIGHT * overlap
        results.append(MatchResult(
            job_id=row["job_id"], source=row["source"], external_id=row["external_id"], title=row["title"],
            company=row["company"], cities=row["cities"], salary=row["salary"], url=row["url"],
            posted_at=row["posted_at"], score=fused, vector_similarity=similarity, skill_overlap=overlap,
            fused_score=fused, matched_skills=matched, missing_skills=missing,
        ))
    results.sort(key=lambda r: (-r.fused_score, -r.vector_similarity, r.job_id))
    return results[:top_k]


def _pool_size(top_k: int) -> int:
    return max(MIN_POOL, min(MAX_POOL, top_k * POOL_FACTOR))


def _embed_profile(embedder: Any, profile: CandidateProfile, model: str) -> np.ndarray:
    if embedder is None:
        raise MatchError("an embedder is needed to embed this resume")
    if embedder.model != model:
        raise MatchError(
            f"the embedder is {embedder.model!r} but job vectors are from the active model {model!r}; "
            "their similarities would mean nothing"
        )
    return np.asarray(embedder.embed_documents([candidate_embedding_text(profile)])[0], dtype=np.float32)


def load_candidate(conn: psycopg.Connection, candidate_id: str) -> CandidateProfile:
    row = conn.execute(
        "SELECT candidate_id, resume_text, name, headline, skills, cities, experience_years, language, content_hash "
        "FROM candidates WHERE candidate_id = %s", (candidate_id,),
    ).fetchone()
    if row is None:
        raise UnknownCandidateError(f"unknown candidate_id {candidate_id!r}")
    return CandidateProfile(
        candidate_id=row[0], resume_text=row[1], name=row[2], headline=row[3], skills=list(row[4] or []),
        cities=list(row[5] or []), experience_years=None if row[6] is None else float(row[6]),
        language=row[7], content_hash=row[8],
    )


def candidate_vector(conn: psycopg.Connection, profile: CandidateProfile, model: str, embedder: Any) -> np.ndarray:
    """The stored vector for the active model when it is current, else a fresh one."""
    row = conn.execute(
        "SELECT embedding, content_hash FROM candidate_embeddings WHERE candidate_id = %s AND model = %s",
        (profile.candidate_id, model),
    ).fetchone()
    if row is not None and (row[1] == profile.content_hash or embedder is None):
        return np.asarray(row[0].to_numpy() if hasattr(row[0], "to_numpy") else row[0], dtype=np.float32)
    return _embed_profile(embedder, profile, model)


def match_with_profile(conn: psycopg.Connection, *, candidate_id: str | None = None,
                       resume_text: str | None = None, filters: SearchFilters | None = None, top_k: int = 10,
                       embedder: Any = None) -> tuple[CandidateProfile, list[MatchResult]]:
    """:func:`match`, also returning the candidate profile the ranking used (its skills, cities)."""
    if (candidate_id is None) == (resume_text is None):
        raise ValueError("give exactly one of candidate_id or resume_text")
    model, dims = _active_model(conn)
    if candidate_id is not None:
        profile = load_candidate(conn, candidate_id)
        vector = candidate_vector(conn, profile, model, embedder)
    else:
        from jobpipe.candidates.parse import parse_resume

        profile = parse_resume("(ad hoc)", resume_text or "")
        vector = _embed_profile(embedder, profile, model)
    rows = _nearest_jobs(conn, vector, model, dims, filters or SearchFilters(), _pool_size(top_k))
    return profile, score_jobs(rows, profile.skills, top_k)


def match(conn: psycopg.Connection, *, candidate_id: str | None = None, resume_text: str | None = None,
          filters: SearchFilters | None = None, top_k: int = 10, embedder: Any = None) -> list[MatchResult]:
    """Jobs ranked for a stored candidate or for raw resume text (exactly one of the two)."""
    return match_with_profile(conn, candidate_id=candidate_id, resume_text=resume_text, filters=filters,
                              top_k=top_k, embedder=embedder)[1]


_WRITE_MATCH = """
INSERT INTO candidate_matches (candidate_id, job_id, rank, score, vector_score, skill_score,
                               matched_skills, missing_skills, model, computed_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, now())
"""


def compute_matches(conn: psycopg.Connection, embedder: Any, *, top_k: int = 20) -> int:
    """Precompute every candidate's top ``top_k`` open jobs into ``candidate_matches``; commit.

    Each candidate's rows are replaced as a whole (old ranks never linger next to new ones).
    Candidates without a current stored vector are embedded on the fly (not stored: storing
    vectors is the embedding stage's job). Returns the number of rows written.
    """
    model, dims = _active_model(conn)
    ids = [r[0] for r in conn.execute("SELECT candidate_id FROM candidates ORDER BY candidate_id")]
    conn.commit()
    written = 0
    pool = _pool_size(top_k)
    for candidate_id in ids:
        profile = load_candidate(conn, candidate_id)
        vector = candidate_vector(conn, profile, model, embedder)
        results = score_jobs(_nearest_jobs(conn, vector, model, dims, SearchFilters(), pool), profile.skills, top_k)
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("DELETE FROM candidate_matches WHERE candidate_id = %s", (candidate_id,))
            cur.executemany(_WRITE_MATCH, [
                (candidate_id, r.job_id, rank, r.fused_score, r.vector_similarity, r.skill_overlap,
                 r.matched_skills, r.missing_skills, model)
                for rank, r in enumerate(results, start=1)
            ])
        written += len(results)
    conn.commit()
    # Candidates that no longer exist lose their rows through ON DELETE CASCADE.
    return written

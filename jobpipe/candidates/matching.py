"""Matches: a candidate's best open jobs, materialized, explained and refreshed incrementally.

**Retrieval** is search's vector plan (``jobpipe.search.vector``): the candidate's hard
preferences become one SQL filter, its selectivity picks an exact scan or an iterative HNSW
scan, and a scan that finds too few falls back to the exact one, so a narrow preference never
starves the list. The pool (``pool_size(depth)`` nearest jobs passing the filter) is then
**scored** (``jobpipe.candidates.scoring``: six parts, 0-100), collapsed to one job per
duplicate group and cut to ``depth``.

**Materialized**: ``candidate_matches`` holds each candidate's top ``top_n`` (default 50) plus
a reserve of the next ``reserve`` (default 25; never shown), so that a job leaving a list lets
the next one move up without a new search. Readers (``GET /candidates/{id}/matches``, the
CLI, MCP) only read the table.

**Incremental**: a run recomputes in full only candidates whose profile, preferences or
vector changed (``candidates.match_hash`` against ``candidate_match_state``), whose list ran
out of reserve, or all of them after a model switch. For every other candidate only the
entries touched by the jobs inserted, updated, closed or reopened since the last run change:
``candidate_match_jobs`` remembers the record hash of every job the lists reflect, its diff
with ``jobs`` is exactly those jobs, a closed job leaves every list at once, and the changed
ones are scored against all candidates in one matrix product and enter a list only where
they beat its last entry (and were close enough to have been in a full build's pool).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from jobpipe.candidates.models import CandidateProfile, MatchResult
from jobpipe.candidates.parse import parse_resume
from jobpipe.candidates.preferences import (
    CandidatePreferences,
    HardFilter,
    candidate_features,
    effective,
)
from jobpipe.candidates.scoring import (
    DEGREE_LEVELS,
    LEVELS,
    PARTS,
    CandidateFeatures,
    JobBatch,
    JobFeature,
    Ranked,
    SkillWeights,
    explain_skills,
    rank,
    score_batch,
    to_usd,
)
from jobpipe.candidates.store import (
    StoredCandidate,
    UnknownCandidateError,
    embedding_text,
    load_candidate,
    load_candidates,
)
from jobpipe.candidates.tiers import sync_skill_tiers
from jobpipe.codeversion import code_digest
from jobpipe.search.types import SearchFilters
from jobpipe.search.vector import choose_plan, vector_candidates
from jobpipe.store.dedupe import normalize_company
from jobpipe.store.jobs import load_jobs, load_open_jobs, open_jobs_of_companies
from jobpipe.store.models import ModelInfo as ActiveModel
from jobpipe.store.models import active_model as serving_model

DEFAULT_TOP_N = 50
DEFAULT_RESERVE = 25
MIN_POOL = 100
MAX_POOL = 1000
#: Random posting pairs sampled to measure a model's similarity scale: enough that its 99.9th
#: percentile rests on 20 pairs. Raised from 4,000 with the scale's quantiles (0.05 / 0.999 from
#: 0.5 / 0.99), so a calibration stored with the old ones (fewer pairs) is measured again and
#: every list rebuilt on the new scale.
CALIBRATION_PAIRS = 20000
_WRITE_BATCH = 200   # candidates per write transaction of a full build


class MatchError(LookupError):
    """The match cannot be computed (no active model, wrong embedder ...); the message says why."""


def pool_size(depth: int) -> int:
    """Vector neighbours scored per candidate: scoring mixes in five more parts than similarity, so
    the best ``depth`` by score come from well beyond the best ``depth`` by similarity."""
    return max(MIN_POOL, min(MAX_POOL, 4 * depth))


# ---------------------------------------------------------------- job features
_FEATURE_FIELDS = ("job_id", "company", "cities", "country", "remote", "job_type", "seniority", "salary",
                   "salary_annual_max", "experience_min", "experience_max", "degree", "skills", "dedupe_key",
                   "location_raw", "source", "external_id")


def _feature(row: dict[str, Any], nice: Iterable[str]) -> JobFeature:
    salary = row["salary"] or {}
    annual = row["salary_annual_max"]
    currency = salary.get("currency")
    return JobFeature(
        job_id=int(row["job_id"]), skills=tuple(dict.fromkeys(row["skills"] or ())), nice=frozenset(nice),
        cities=tuple(row["cities"] or ()), country=row["country"], remote=row["remote"], job_type=row["job_type"],
        level=LEVELS.get(row["seniority"] or ""), experience_min=row["experience_min"],
        experience_max=row["experience_max"], degree=DEGREE_LEVELS.get(row["degree"] or ""),
        salary_usd=to_usd(annual, currency),
        salary_max=None if annual is None else float(annual), salary_currency=currency,
        location_raw=row["location_raw"], company=row["company"], dedupe_key=row["dedupe_key"],
        identity=posting_identity(row["source"], row["external_id"]),
    )


#: Between a posting's source and its external id in its identity (the unit separator, U+001F).
_IDENTITY_SEPARATOR = "\x1f"


def posting_identity(source: str, external_id: str) -> str:
    """The tie-break key of equal scores (``JobFeature.identity``); :func:`posting_identity_sql` is
    the same key computed by the database."""
    return f"{source}{_IDENTITY_SEPARATOR}{external_id}"


def posting_identity_sql(alias: str) -> str:
    """:func:`posting_identity` as a SQL expression over the ``source`` and ``external_id`` of the
    table aliased ``alias``: the same string, ordered as Python orders it (``COLLATE "C"``: code point
    order, whatever the database's collation)."""
    if not alias.isidentifier():
        raise ValueError(f"not a table alias: {alias!r}")
    return f'({alias}.source || chr({ord(_IDENTITY_SEPARATOR)}) || {alias}.external_id) COLLATE "C"'


class JobFeatures:
    """Job features by id, loaded through the jobs read model on demand (or all at once) and cached."""

    def __init__(self, conn: psycopg.Connection):
        self.conn = conn
        self.cache: dict[int, JobFeature] = {}

    def _nice(self, ids: Sequence[int]) -> dict[int, list[str]]:
        return dict(self.conn.execute("SELECT job_id, nice_to_have FROM job_skill_tiers WHERE job_id = ANY(%s)",
                                      (list(ids),)).fetchall())

    def prefetch_open(self) -> int:
        after = 0
        while True:
            rows = load_open_jobs(self.conn, _FEATURE_FIELDS, after_id=after)
            if not rows:
                break
            nice = self._nice([r["job_id"] for r in rows])
            for r in rows:
                self.cache[r["job_id"]] = _feature(r, nice.get(r["job_id"], ()))
            after = rows[-1]["job_id"]
        return len(self.cache)

    def get(self, ids: Sequence[int], *, refresh: bool = False) -> dict[int, JobFeature]:
        missing = list(ids) if refresh else [i for i in ids if i not in self.cache]
        if missing:
            rows = load_jobs(self.conn, missing, _FEATURE_FIELDS)
            nice = self._nice(list(rows))
            for job_id, r in rows.items():
                self.cache[job_id] = _feature(r, nice.get(job_id, ()))
        return {i: self.cache[i] for i in ids if i in self.cache}

    def forget(self, ids: Iterable[int]) -> None:
        for i in ids:
            self.cache.pop(i, None)


def _np(value: Any) -> np.ndarray:
    """A pgvector value as float32 numpy (the adapter returns ``Vector`` objects)."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


# ---------------------------------------------------------------- calibration
#: The semantic part is 0 at the first and 100 at the second quantile of random posting pairs'
#: similarities. A resume's pool (its ``pool_size`` nearest postings) spans about the 10th to the
#: 99.9th percentile of random pairs; the old anchors (the median and the 99th percentile) clipped
#: the part to 0 for the far half of a weakly matched candidate's pool and to 100 for the top of a
#: strongly matched one, so there it tied every job and the occupation-blind fit parts alone
#: ordered them (docs/candidates.md "Match quality").
FLOOR_QUANTILE = 0.05
CEILING_QUANTILE = 0.999


@dataclass(frozen=True)
class Calibration:
    """The per-model scales every list of a model is scored on: the semantic part's floor and
    ceiling, and the skill weights. ``measured``: they were (re)measured and stored by this
    call, so lists scored on the old ones must be rebuilt."""

    floor: float
    ceiling: float
    weights: SkillWeights
    measured: bool = False


def _measure_weights(conn: psycopg.Connection, model: ActiveModel) -> SkillWeights:
    skills = [r[0] or [] for r in conn.execute(
        "SELECT j.skills FROM jobs j JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = %s "
        "WHERE j.closed_at IS NULL", (model.model,))]
    return SkillWeights.measure(skills)


def calibrate(conn: psycopg.Connection, model: ActiveModel, *, store: bool = True) -> Calibration:
    """The model's scales, measured once and frozen (``sql/0024_skill_weights.sql``).

    * floor: the similarity below which only 5% of random posting pairs fall (``FLOOR_QUANTILE``);
    * ceiling: the similarity of the closest 0.1% of random pairs (``CEILING_QUANTILE``). Models
      differ widely in raw cosines, and a resume is never as close to a posting as a copy is:
      anchored at 1.0 the semantic part used a fifth of its range while the skills part used all
      of it, and outweighed it against the documented weights;
    * skill weights (``SkillWeights``).

    Frozen so that every list of a model is scored on the same scales (a night's partial refresh
    equals a rebuild); measured again only while too few postings existed for stable figures
    (then skills weigh alike).
    """
    row = conn.execute("SELECT similarity_floor, pairs, similarity_ceiling, skill_weights FROM match_calibration "
                       "WHERE model = %s", (model.model,)).fetchone()
    if row is not None and row[1] >= CALIBRATION_PAIRS // 2 and row[2] is not None and row[3] is not None:
        return Calibration(float(row[0]), float(row[2]), SkillWeights.from_json(row[3]))
    register_vector(conn)
    vectors = [_np(r[0]) for r in conn.execute(
        "SELECT e.embedding FROM job_embeddings e JOIN jobs j ON j.job_id = e.job_id "
        # sampled by the posting's identity, not its job_id: ids are assigned in arrival order, which
        # differs between two databases holding the same postings (parallel runs), and so would
        # their scales and every score
        f"WHERE e.model = %s AND j.closed_at IS NULL ORDER BY md5({posting_identity_sql('j')}) LIMIT 400",
        (model.model,))]
    if len(vectors) < 10:
        floor = float(row[0]) if row is not None else 0.0
        return Calibration(floor, 1.0, SkillWeights.uniform())
    matrix = np.stack(vectors)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    rng = np.random.default_rng(0)
    a = rng.integers(0, len(matrix), CALIBRATION_PAIRS)
    b = rng.integers(0, len(matrix), CALIBRATION_PAIRS)
    keep = a != b
    sims = np.einsum("ij,ij->i", matrix[a[keep]], matrix[b[keep]])
    floor = float(np.clip(np.quantile(sims, FLOOR_QUANTILE), -0.99, 0.95))
    ceiling = float(np.clip(np.quantile(sims, CEILING_QUANTILE), floor + 0.05, 1.0))
    frozen = len(matrix) >= 100
    pairs = int(keep.sum()) if frozen else min(int(keep.sum()), CALIBRATION_PAIRS // 2 - 1)
    weights = _measure_weights(conn, model) if frozen else SkillWeights.uniform()
    if store:
        conn.execute("INSERT INTO match_calibration (model, similarity_floor, pairs, similarity_ceiling, skill_weights) "
                     "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (model) DO UPDATE SET "
                     "similarity_floor = EXCLUDED.similarity_floor, pairs = EXCLUDED.pairs, "
                     "similarity_ceiling = EXCLUDED.similarity_ceiling, skill_weights = EXCLUDED.skill_weights, "
                     "computed_at = now()",
                     (model.model, floor, pairs, ceiling if frozen else None,
                      Jsonb(weights.as_json()) if frozen else None))
        if not conn.autocommit:
            conn.commit()
    return Calibration(floor, ceiling, weights, measured=store and frozen)


def similarity_floor(conn: psycopg.Connection, model: ActiveModel, *, store: bool = True) -> float:
    """The model's similarity floor alone (``calibrate``)."""
    return calibrate(conn, model, store=store).floor


# ---------------------------------------------------------------- one candidate, in full
@dataclass
class Prepared:
    """A candidate ready to be matched: features, hard filter, vector."""

    candidate_id: str
    features: CandidateFeatures
    hard: HardFilter
    vector: np.ndarray


def excluded_jobs(conn: psycopg.Connection, companies: Sequence[str]) -> list[int]:
    """Open jobs of the excluded companies: the same company after the dedupe key's normalization
    ("Acme Inc." is "ACME"), or a name that starts with the excluded one ("Acme Cloud" for "Acme")."""
    if not companies:
        return []
    wanted = [(normalize_company(c), c.strip().lower()) for c in companies if c.strip()]
    out = []
    for job_id, company in open_jobs_of_companies(conn, [c for _, c in wanted]).items():
        norm, low = normalize_company(company), (company or "").strip().lower()
        for w_norm, w_low in wanted:
            if (w_norm and norm == w_norm) or (low.startswith(w_low) and (len(low) == len(w_low)
                                                                           or not low[len(w_low)].isalnum())):
                out.append(job_id)
                break
    return out


def prepare(conn: psycopg.Connection, candidate_id: str, profile: CandidateProfile, prefs: CandidatePreferences,
            vector: np.ndarray, *, extra: SearchFilters | None = None) -> Prepared:
    eff = effective(profile, prefs)
    hard = HardFilter.of(prefs, excluded_jobs(conn, prefs.exclude_companies), extra)
    return Prepared(candidate_id, candidate_features(candidate_id, profile, eff), hard,
                    np.asarray(vector, dtype=np.float32))


@dataclass
class FullResult:
    ranked: list[Ranked]
    similarity_floor: float | None     # the pool's last similarity when the pool was full
    complete: bool                     # the list holds every job passing the hard preferences
    plan: str = ""


def compute_full(conn: psycopg.Connection, model: ActiveModel, prepared: Prepared, features: JobFeatures,
                 calibration: Calibration, depth: int) -> FullResult:
    """The candidate's best ``depth`` jobs, found through search's vector plan and scored."""
    fsql = prepared.hard.sql()
    plan = choose_plan(conn, fsql)
    pool = pool_size(depth)
    hits = vector_candidates(conn, model, prepared.vector, fsql, pool, plan)
    if not hits:
        return FullResult([], None, True, plan.method)
    found = features.get([h.job_id for h in hits])
    hits = [h for h in hits if h.job_id in found]
    batch = JobBatch([found[h.job_id] for h in hits], calibration.weights)
    similarity = 1.0 - np.fromiter((h.distance for h in hits), dtype=np.float64, count=len(hits))
    scores, parts = score_batch(prepared.features, batch, similarity, calibration.floor, ceiling=calibration.ceiling)
    ranked = rank(batch, np.arange(len(batch)), scores, parts, similarity, depth)
    full = len(hits) >= pool
    return FullResult(ranked, float(similarity[-1]) if full else None, not full and len(ranked) < depth,
                      plan.method + ("+fallback" if plan.fallback else ""))


# ---------------------------------------------------------------- writing lists
_ROW_TYPES = ["text", "int8", "text", "float4", "float4", "float4", "float4", "float4", "float4", "float4", "float4",
              "text[]", "text[]", "text[]", "text[]", "text"]
_ROW_COLUMNS = ("candidate_id, job_id, model, score, semantic, skills, experience, location, job_type, salary, "
                "similarity, matched_skills, missing_skills, matched_nice, missing_nice, dedupe_key")


def _row(candidate_id: str, model: str, cand: CandidateFeatures, r: Ranked) -> tuple:
    ex = explain_skills(cand, r.feature)
    return (candidate_id, r.feature.job_id, model, round(r.score, 3), *(round(r.parts[p], 3) for p in PARTS),
            round(r.similarity, 5), ex["matched_skills"], ex["missing_skills"], ex["matched_nice"],
            ex["missing_nice"], r.feature.dedupe_key)


def _copy_rows(cur: psycopg.Cursor, rows: list[tuple]) -> None:
    if not rows:
        return
    with cur.copy(f"COPY candidate_matches ({_ROW_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(_ROW_TYPES)
        for row in rows:
            copy.write_row(row)


def write_full(conn: psycopg.Connection, model: str,
               results: list[tuple[Prepared, FullResult, str]]) -> int:
    """Replace the lists (and match state) of these candidates in one transaction; returns rows written."""
    if not results:
        return 0
    ids = [p.candidate_id for p, _, _ in results]
    rows = [_row(p.candidate_id, model, p.features, r) for p, res, _ in results for r in res.ranked]
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("DELETE FROM candidate_matches WHERE candidate_id = ANY(%s)", (ids,))
        _copy_rows(cur, rows)
        cur.executemany(
            "INSERT INTO candidate_match_state (candidate_id, model, match_hash, similarity_floor, complete) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (candidate_id) DO UPDATE SET model = EXCLUDED.model, "
            "match_hash = EXCLUDED.match_hash, similarity_floor = EXCLUDED.similarity_floor, "
            "complete = EXCLUDED.complete, computed_at = now()",
            [(p.candidate_id, model, match_hash, res.similarity_floor, res.complete) for p, res, match_hash in results])
    return len(rows)


# ---------------------------------------------------------------- the nightly refresh
@dataclass
class MatchRefresh:
    """What one refresh did (counts only)."""

    recomputed: int = 0           # candidates whose list was written (in full or in part)
    full: int = 0                 # ... of which recomputed in full
    partial: int = 0              # ... of which only the touched entries changed
    waiting: int = 0              # candidates without a current vector of the active model
    jobs_touched: int = 0         # jobs inserted/updated/reopened since the last refresh (and their duplicates)
    jobs_gone: int = 0            # jobs closed (or without a vector) since
    rows_written: int = 0
    rows_removed: int = 0
    model: str | None = None
    seconds: float = 0.0
    plans: dict[str, int] = field(default_factory=dict)

    def as_metadata(self) -> dict[str, Any]:
        return {"recomputed": self.recomputed, "full": self.full, "partial": self.partial, "waiting": self.waiting,
                "jobs_touched": self.jobs_touched, "jobs_gone": self.jobs_gone, "rows_written": self.rows_written,
                "rows_removed": self.rows_removed, "model": self.model or "", "seconds": round(self.seconds, 2)}


#: What a stored list's scores are made of (globs below jobpipe/): changing any of them recomputes
#: every list on the next refresh, as a changed profile would, so an upgrade never keeps the old
#: scorer's ranking under the new one's name.
_SCORER_CODE = ("candidates/scoring.py", "candidates/preferences.py", "candidates/tiers.py", "candidates/matching.py",
                "search/families.py")
#: Data the scorer reads: the skill families a candidate's listed skills count for.
_SCORER_DATA = ("search/data/skill_families.yaml",)


@functools.cache
def scorer_version() -> str:
    """12 hex digits, equal exactly when the code that scores and ranks a list is the same."""
    return code_digest("candidate scorer", _SCORER_CODE, _SCORER_DATA)[:12]


def _list_hash(match_hash: str) -> str:
    """What a list's state remembers: the profile it was computed for and the scorer that ranked it."""
    return f"{match_hash}:{scorer_version()}"


_CANDIDATE_STATE = """
SELECT c.candidate_id, c.match_hash, s.model, s.match_hash, s.similarity_floor, s.complete,
       (e.candidate_id IS NOT NULL) AS has_vector
FROM candidates c
LEFT JOIN candidate_match_state s ON s.candidate_id = c.candidate_id
LEFT JOIN candidate_embeddings e ON e.candidate_id = c.candidate_id AND e.model = %(model)s
                                AND e.content_hash = c.content_hash
ORDER BY c.candidate_id
"""
# The open jobs with a vector of the model, with the record hash the lists should reflect: a job
# whose vector is stale (content changed, not re-embedded yet) keeps its remembered hash until it is.
_CURRENT_JOBS = """
SELECT j.job_id, CASE WHEN e.content_hash = j.content_hash OR s.record_hash IS NULL THEN j.record_hash
                      ELSE s.record_hash END
FROM jobs j JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = %(model)s
LEFT JOIN candidate_match_jobs s ON s.job_id = j.job_id
WHERE j.closed_at IS NULL
"""


def _candidate_vectors(conn: psycopg.Connection, ids: Sequence[str], model: str) -> dict[str, np.ndarray]:
    register_vector(conn)
    return {cid: _np(v) for cid, v in conn.execute(
        "SELECT e.candidate_id, e.embedding FROM candidate_embeddings e JOIN candidates c USING (candidate_id) "
        "WHERE e.model = %s AND e.content_hash = c.content_hash AND e.candidate_id = ANY(%s)", (model, list(ids)))}


def _prepare_many(conn: psycopg.Connection, stored: list[StoredCandidate], vectors: dict[str, np.ndarray]
                  ) -> list[tuple[Prepared, str]]:
    out = []
    for s in stored:
        vector = vectors.get(s.candidate_id)
        if vector is None:
            continue
        out.append((prepare(conn, s.candidate_id, s.profile, s.preferences, vector), _list_hash(s.match_hash)))
    return out


def _full_builds(conn: psycopg.Connection, model: ActiveModel, ids: list[str], features: JobFeatures,
                 calibration: Calibration,
                 depth: int, result: MatchRefresh, progress: Callable[[int, int], None] | None) -> None:
    for start in range(0, len(ids), _WRITE_BATCH):
        chunk = ids[start:start + _WRITE_BATCH]
        stored = load_candidates(conn, chunk)
        prepared = _prepare_many(conn, stored, _candidate_vectors(conn, chunk, model.model))
        results = []
        for p, match_hash in prepared:
            res = compute_full(conn, model, p, features, calibration, depth)
            result.plans[res.plan] = result.plans.get(res.plan, 0) + 1
            results.append((p, res, match_hash))
        result.rows_written += write_full(conn, model.model, results)
        result.full += len(results)
        if not conn.autocommit:
            conn.commit()
        if progress:
            progress(min(start + _WRITE_BATCH, len(ids)), len(ids))


def _job_vectors(conn: psycopg.Connection, ids: Sequence[int], model: str) -> dict[int, np.ndarray]:
    register_vector(conn)
    return {job_id: _np(v) for job_id, v in conn.execute(
        "SELECT job_id, embedding FROM job_embeddings WHERE model = %s AND job_id = ANY(%s)", (model, list(ids)))}


def _siblings(conn: psycopg.Connection, keys: Sequence[str]) -> list[int]:
    """Open jobs sharing a dedupe key with a changed or closed job: one of them may now lead its group."""
    if not keys:
        return []
    return [r[0] for r in conn.execute(
        "SELECT job_id FROM jobs WHERE closed_at IS NULL AND dedupe_key = ANY(%s)", (list(keys),))]


def _partial(conn: psycopg.Connection, model: ActiveModel, ids: list[str], touched: list[int],
             features: JobFeatures, calibration: Calibration, depth: int, result: MatchRefresh,
             state: dict[str, tuple[float | None, bool]]) -> None:
    """Score the touched jobs against these candidates; each enters a list where it beats the list's end."""
    vectors = _job_vectors(conn, touched, model.model)
    found = features.get([j for j in touched if j in vectors], refresh=True)
    jobs = [found[j] for j in touched if j in found]
    if not jobs or not ids:
        return
    batch = JobBatch(jobs, calibration.weights)
    job_matrix = np.stack([vectors[j.job_id] for j in jobs])
    job_matrix /= np.maximum(np.linalg.norm(job_matrix, axis=1, keepdims=True), 1e-12)
    ends = {cid: (n, float(low)) for cid, n, low in conn.execute(
        "SELECT candidate_id, count(*), min(score) FROM candidate_matches WHERE candidate_id = ANY(%s) "
        "GROUP BY candidate_id", (ids,))}
    for start in range(0, len(ids), 1000):
        chunk = ids[start:start + 1000]
        stored = load_candidates(conn, chunk)
        cvec = _candidate_vectors(conn, chunk, model.model)
        prepared = [p for p, _ in _prepare_many(conn, stored, cvec)]
        if not prepared:
            continue
        cmatrix = np.stack([p.vector for p in prepared])
        cmatrix /= np.maximum(np.linalg.norm(cmatrix, axis=1, keepdims=True), 1e-12)
        sims = (cmatrix @ job_matrix.T).astype(np.float64)
        skills = batch.skill_matrix([p.features for p in prepared])
        matched_req = skills @ batch.required.T
        matched_nice = skills @ batch.nice.T
        merges: list[tuple[Prepared, list[Ranked]]] = []
        for row, p in enumerate(prepared):
            pool_floor, complete = state.get(p.candidate_id, (None, False))
            keep = p.hard.mask(batch)
            if pool_floor is not None:
                keep &= sims[row] >= pool_floor
            rows = np.flatnonzero(keep)
            if len(rows) == 0:
                continue
            # only the changed jobs that pass the hard preferences and the pool's similarity are
            # scored (the same per-job arithmetic as scoring them all)
            sub, sim = batch.take(rows), sims[row][rows]
            scores, parts = score_batch(p.features, sub, sim, calibration.floor, ceiling=calibration.ceiling,
                                        matched=(matched_req[row][rows], matched_nice[row][rows]))
            low = ends.get(p.candidate_id, (0, float("-inf")))[1]
            entering = np.arange(len(sub)) if complete else np.flatnonzero(scores > low)
            if len(entering) == 0:
                continue
            merges.append((p, rank(sub, entering, scores, parts, sim, depth)))
        result.partial += _merge_many(conn, model.model, merges, depth, result)


def _merge_many(conn: psycopg.Connection, model: str, merges: list[tuple[Prepared, list[Ranked]]], depth: int,
                result: MatchRefresh) -> int:
    """Merge new entries into stored lists (one per duplicate group, best ``depth`` kept), in one
    transaction for the whole batch; returns how many lists changed.

    One read of the batch's stored entries and one write of all changes: a night touches most
    lists a little, and a round trip per list would cost more than the scoring.
    """
    if not merges:
        return 0
    ids = [p.candidate_id for p, _ in merges]
    existing: dict[str, list[tuple[int, float, str | None, str]]] = {cid: [] for cid in ids}
    with conn.cursor(binary=True) as cur:
        for cid, job_id, score, key, identity in cur.execute(
                f"SELECT m.candidate_id, m.job_id, m.score, m.dedupe_key, {posting_identity_sql('j')} "
                "FROM candidate_matches m JOIN jobs j USING (job_id) WHERE m.candidate_id = ANY(%s)", (ids,)):
            existing[cid].append((job_id, float(score), key, identity))
    drops: list[tuple[str, int]] = []
    rows: list[tuple] = []
    trimmed: list[tuple[str, bool]] = []
    changed = 0
    for p, new in merges:
        stored = existing[p.candidate_id]
        # A job scored again (a touched copy of a changed job's group) replaces its stored entry.
        rescored = {r.feature.job_id for r in new}
        entries: list[tuple[float, int, str | None, Ranked | None, str]] = [
            (s_, j, k, None, ident) for j, s_, k, ident in stored if j not in rescored]
        entries += [(r.score, r.feature.job_id, r.feature.dedupe_key, r, r.feature.identity) for r in new]
        entries.sort(key=lambda e: (-round(e[0], 3), e[4], e[1]))   # ties as rank() breaks them
        kept: list[tuple[float, int, str | None, Ranked | None, str]] = []
        groups: set[str] = set()
        for e in entries:
            if e[2] is not None:
                if e[2] in groups:
                    continue
                groups.add(e[2])
            kept.append(e)
        cut = len(kept) > depth
        kept = kept[:depth]
        kept_ids = {e[1] for e in kept}
        drop = [j for j, _, _, _ in stored if j not in kept_ids or j in rescored]
        add = [e[3] for e in kept if e[3] is not None]
        if not add and not drop:
            continue
        changed += 1
        drops += [(p.candidate_id, j) for j in drop]
        rows += [_row(p.candidate_id, model, p.features, r) for r in add]
        trimmed.append((p.candidate_id, cut))
    if not changed:
        return 0
    with conn.transaction(), conn.cursor() as cur:
        if drops:
            cur.execute("DELETE FROM candidate_matches m USING unnest(%s::text[], %s::bigint[]) AS d(cid, jid) "
                        "WHERE m.candidate_id = d.cid AND m.job_id = d.jid",
                        ([c for c, _ in drops], [j for _, j in drops]))
        _copy_rows(cur, rows)
        cur.execute("UPDATE candidate_match_state s SET computed_at = now(), complete = s.complete AND NOT t.cut "
                    "FROM unnest(%s::text[], %s::boolean[]) AS t(cid, cut) WHERE s.candidate_id = t.cid",
                    ([c for c, _ in trimmed], [t for _, t in trimmed]))
    result.rows_written += len(rows)
    result.rows_removed += len(drops)
    return changed


def refresh_matches(conn: psycopg.Connection, *, top_n: int = DEFAULT_TOP_N, reserve: int = DEFAULT_RESERVE,
                    full: bool = False, progress: Callable[[int, int], None] | None = None) -> MatchRefresh:
    """Bring every candidate's list up to date with the jobs and the candidate (module docstring); commits."""
    started = time.perf_counter()
    result = MatchRefresh()
    model = serving_model(conn)
    if model is None:
        return result
    result.model = model.model
    depth = top_n + reserve

    sync_skill_tiers(conn)
    calibration = calibrate(conn, model)
    rows = conn.execute(_CANDIDATE_STATE, {"model": model.model}).fetchall()
    snapshot_models = [r[0] for r in conn.execute("SELECT DISTINCT model FROM candidate_match_jobs")]
    # none yet, another model's, or new scales (calibration): every list in full
    rebuild = full or snapshot_models != [model.model] or calibration.measured
    current: dict[int, str] = dict(conn.execute(_CURRENT_JOBS, {"model": model.model}).fetchall())
    if not conn.autocommit:
        conn.commit()

    full_ids, partial_ids, waiting, stale = [], [], [], []
    state: dict[str, tuple[float | None, bool]] = {}
    for cid, match_hash, s_model, s_hash, s_floor, s_complete, has_vector in rows:
        match_hash = _list_hash(match_hash)
        if not has_vector:
            waiting.append(cid)
            if s_model is not None and (s_model != model.model or s_hash != match_hash):
                stale.append(cid)   # a list computed from another model or an older profile: not shown
            continue
        if rebuild or s_model != model.model or s_hash != match_hash:
            full_ids.append(cid)
        else:
            partial_ids.append(cid)
            state[cid] = (None if s_floor is None else float(s_floor), bool(s_complete))
    result.waiting = len(waiting)
    if stale:
        with conn.transaction():
            conn.execute("DELETE FROM candidate_matches WHERE candidate_id = ANY(%s)", (stale,))
            conn.execute("DELETE FROM candidate_match_state WHERE candidate_id = ANY(%s)", (stale,))

    features = JobFeatures(conn)
    seen: dict[int, str] = {}
    gone: list[int] = []
    if not rebuild:
        seen = dict(conn.execute("SELECT job_id, record_hash FROM candidate_match_jobs").fetchall())
        changed = [j for j, h in current.items() if seen.get(j) != h]
        gone = [j for j in seen if j not in current]
        result.jobs_gone = len(gone)
        leaving = gone + changed
        keys = [r[0] for r in conn.execute(
            "SELECT DISTINCT dedupe_key FROM candidate_matches WHERE job_id = ANY(%s) AND dedupe_key IS NOT NULL",
            (leaving,))] if leaving else []
        keys += [k for k in (f.dedupe_key for f in features.get(changed, refresh=True).values()) if k]
        touched = sorted(set(changed) | (set(_siblings(conn, sorted(set(keys)))) & set(current)))
        result.jobs_touched = len(touched)
        if leaving:
            # A closed job leaves every list now; a changed one is scored again below.
            with conn.transaction():
                result.rows_removed += conn.execute(
                    "DELETE FROM candidate_matches WHERE job_id = ANY(%s) AND NOT (candidate_id = ANY(%s))",
                    (leaving, full_ids)).rowcount
        counts: dict[str, int] = dict(conn.execute(
            "SELECT candidate_id, count(*) FROM candidate_matches WHERE candidate_id = ANY(%s) GROUP BY candidate_id",
            (partial_ids,)).fetchall())
        short = {c for c in partial_ids if counts.get(c, 0) < top_n and not state[c][1]}
        partial_ids = [c for c in partial_ids if c not in short]
        full_ids += sorted(short)
        if touched and partial_ids:
            _partial(conn, model, partial_ids, touched, features, calibration, depth, result, state)
        if not conn.autocommit:
            conn.commit()
    else:
        full_ids += partial_ids
        partial_ids = []

    if full_ids:
        if len(full_ids) > 200:
            features.prefetch_open()
        _full_builds(conn, model, sorted(full_ids), features, calibration, depth, result, progress)

    # remember what the lists now reflect; whatever happened above, no closed job stays in a list
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("DELETE FROM candidate_matches m USING jobs j WHERE j.job_id = m.job_id AND j.closed_at IS NOT NULL")
        result.rows_removed += cur.rowcount
        if rebuild or not partial_ids:
            cur.execute("DELETE FROM candidate_match_jobs")
            with cur.copy("COPY candidate_match_jobs (job_id, record_hash, model) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int8", "text", "text"])
                for job_id, record_hash in current.items():
                    copy.write_row((job_id, record_hash, model.model))
        else:
            # Only the jobs that left since the snapshot (read above as `seen`) go: the same rows as
            # "every job not open now", but a delete by the few gone ids through the primary key
            # instead of testing each snapshot row against every open id (quadratic at 30k jobs).
            if gone:
                cur.execute("DELETE FROM candidate_match_jobs WHERE job_id = ANY(%s)", (gone,))
            cur.executemany(
                "INSERT INTO candidate_match_jobs (job_id, record_hash, model) VALUES (%s, %s, %s) "
                "ON CONFLICT (job_id) DO UPDATE SET record_hash = EXCLUDED.record_hash, model = EXCLUDED.model",
                [(j, h, model.model) for j, h in current.items() if seen.get(j) != h])
    if not conn.autocommit:
        conn.commit()
    result.recomputed = result.full + result.partial
    result.seconds = time.perf_counter() - started
    return result


def match_candidate_now(conn: psycopg.Connection, candidate_id: str, *, top_n: int = DEFAULT_TOP_N,
                        reserve: int = DEFAULT_RESERVE) -> int:
    """Recompute one candidate's list right away (the API and CLI after adding a candidate); rows written.

    Needs the candidate's vector of the active model; returns 0 (nothing written) without one.
    """
    model = serving_model(conn)
    if model is None:
        return 0
    stored = load_candidate(conn, candidate_id)
    vectors = _candidate_vectors(conn, [candidate_id], model.model)
    if candidate_id not in vectors:
        return 0
    calibration = calibrate(conn, model, store=False)
    prepared = prepare(conn, candidate_id, stored.profile, stored.preferences, vectors[candidate_id])
    res = compute_full(conn, model, prepared, JobFeatures(conn), calibration, top_n + reserve)
    written = write_full(conn, model.model, [(prepared, res, _list_hash(stored.match_hash))])
    if not conn.autocommit:
        conn.commit()
    return written


# ---------------------------------------------------------------- reading and ad-hoc matching
_SHOWN = ("job_id", "source", "external_id", "title", "company", "cities", "salary", "url", "posted_at", "remote",
          "job_type")


def _results(conn: psycopg.Connection, scored: list[tuple[int, float, dict[str, float], float, dict[str, list[str]]]]
             ) -> list[MatchResult]:
    jobs = load_jobs(conn, [s[0] for s in scored], _SHOWN)
    out = []
    for rank_no, (job_id, score, parts, similarity, skills) in enumerate(scored, 1):
        job = jobs.get(job_id)
        if job is None:
            continue
        out.append(MatchResult(
            job_id=job_id, source=job["source"], external_id=job["external_id"], title=job["title"],
            company=job["company"], cities=job["cities"], salary=job["salary"], url=job["url"],
            posted_at=job["posted_at"], score=score, parts=parts, similarity=similarity, remote=job["remote"],
            job_type=job["job_type"], rank=rank_no, **skills))
    return out


@dataclass
class StoredMatches:
    candidate_id: str
    model: str | None
    results: list[MatchResult]
    computed_at: Any = None
    note: str | None = None


def read_matches(conn: psycopg.Connection, candidate_id: str, *, top_k: int = 10,
                 top_n: int = DEFAULT_TOP_N) -> StoredMatches:
    """A candidate's materialized matches, best first (at most ``top_n``: the reserve is never shown)."""
    row = conn.execute(
        "SELECT c.candidate_id, s.model, s.computed_at, m.model FROM candidates c "
        "LEFT JOIN candidate_match_state s ON s.candidate_id = c.candidate_id "
        "LEFT JOIN embedding_models m ON m.state = 'active' WHERE c.candidate_id = %s", (candidate_id,)).fetchone()
    if row is None:
        raise UnknownCandidateError(f"unknown candidate_id {candidate_id!r}")
    _, list_model, computed_at, active = row
    if list_model is None or list_model != active:
        note = ("no matches computed yet: they are computed by the pipeline's candidate_matches stage"
                if list_model is None else f"matches were computed with {list_model!r}, not the active model")
        return StoredMatches(candidate_id, active, [], computed_at, note)
    rows = conn.execute(
        f"SELECT job_id, score, similarity, {', '.join(PARTS)}, matched_skills, missing_skills, matched_nice, "
        "missing_nice FROM candidate_matches WHERE candidate_id = %s AND model = %s "
        "ORDER BY score DESC, job_id LIMIT %s", (candidate_id, active, min(top_k, top_n))).fetchall()
    scored = []
    for r in rows:
        parts = {name: float(v) for name, v in zip(PARTS, r[3:3 + len(PARTS)])}
        rest = r[3 + len(PARTS):]
        scored.append((int(r[0]), float(r[1]), parts, float(r[2]),
                       {"matched_skills": list(rest[0]), "missing_skills": list(rest[1]),
                        "matched_nice": list(rest[2]), "missing_nice": list(rest[3])}))
    return StoredMatches(candidate_id, active, _results(conn, scored), computed_at)


def _embed(embedder: Any, text: str, model: str) -> np.ndarray:
    if embedder is None:
        raise MatchError("an embedder is needed to embed this resume")
    if embedder.model != model:
        raise MatchError(f"the embedder is {embedder.model!r} but job vectors are from the active model {model!r}; "
                         "their similarities would mean nothing")
    return np.asarray(embedder.embed_documents([text])[0], dtype=np.float32)


def match_with_profile(conn: psycopg.Connection, *, candidate_id: str | None = None, resume_text: str | None = None,
                       filters: SearchFilters | None = None, top_k: int = 10, embedder: Any = None,
                       preferences: CandidatePreferences | None = None) -> tuple[CandidateProfile, list[MatchResult]]:
    """Jobs ranked now for a stored candidate or for raw resume text (exactly one), under ``filters``.

    The same retrieval and scoring as the materialized lists, plus the request's own filters.
    """
    if (candidate_id is None) == (resume_text is None):
        raise ValueError("give exactly one of candidate_id or resume_text")
    model = serving_model(conn)
    if model is None:
        raise MatchError("no active embedding model: run the pipeline to embed jobs first")
    if candidate_id is not None:
        stored = load_candidate(conn, candidate_id)
        profile, prefs = stored.profile, preferences or stored.preferences
        vector = _candidate_vectors(conn, [candidate_id], model.model).get(candidate_id)
        if vector is None:
            vector = _embed(embedder, stored.embedding_text, model.model)
    else:
        profile = parse_resume("(ad hoc)", resume_text or "")
        prefs = preferences or CandidatePreferences()
        vector = _embed(embedder, embedding_text(profile), model.model)
    prepared = prepare(conn, profile.candidate_id, profile, prefs, vector, extra=filters)
    calibration = calibrate(conn, model, store=False)
    res = compute_full(conn, model, prepared, JobFeatures(conn), calibration, max(top_k, 1))
    scored = [(r.feature.job_id, r.score, r.parts, r.similarity, explain_skills(prepared.features, r.feature))
              for r in res.ranked[:top_k]]
    return profile, _results(conn, scored)


def match(conn: psycopg.Connection, **kwargs: Any) -> list[MatchResult]:
    """:func:`match_with_profile` without the profile."""
    return match_with_profile(conn, **kwargs)[1]

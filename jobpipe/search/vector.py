"""The vector leg: the active model's HNSW index, or an exact scan when a filter is selective.

A filtered HNSW query walks the graph in distance order and drops rows the filter rejects;
with a ~1% filter it returns almost nothing (measured: recall 0.04 at 20k vectors). So the
filter's selectivity is estimated first (the planner's row estimate): a small set is
scanned exactly (every match, true order, a few ms); a large one goes through HNSW with
``hnsw.iterative_scan = relaxed_order``, which keeps walking until enough rows pass the
filter, and falls back to the exact scan if it still returns too few.

The SQL matches the store's per-model partial index exactly:
``USING hnsw ((embedding::vector(DIMS)) vector_cosine_ops) WHERE model = '<model>'``.
The model name is inlined as a literal (never a bound parameter) so that even a generic
prepared plan can prove the partial index's predicate.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from jobpipe.db.rows import one
from jobpipe.search.filters import FilterSQL
from jobpipe.store.models import ModelInfo

#: At most this many filter matches: exact scan, at ``EXACT_REFERENCE_ROWS`` vectors (see
#: :func:`exact_max_rows` for other sizes). Measured on 100k postings (warm cache): an exact
#: scan costs ~8-10 µs per matching row (a primary-key probe and a 2 kB vector each), an iterative
#: HNSW scan that checks each candidate against the filter ~30 ms at 8%
#: selectivity (job_type=intern: exact 67 ms, iterative 30 ms) and ~12 ms at 20%.
EXACT_MAX_ROWS = 4000
EXACT_REFERENCE_ROWS = 100_000
#: HNSW candidate list size; at least the number of rows asked for.
EF_SEARCH = 100
#: Bounds of the tuples an iterative scan may visit when a filter is moderately selective.
MIN_SCAN_TUPLES = 20_000
MAX_SCAN_TUPLES = 400_000


class QueryVectorCache:
    """LRU of query vectors per (model, query): agents repeat and page through queries."""

    def __init__(self, size: int = 2048):
        self.size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, model: str, query: str) -> np.ndarray | None:
        with self._lock:
            vector = self._items.get((model, query))
            if vector is not None:
                self._items.move_to_end((model, query))
            return vector

    def put(self, model: str, query: str, vector: np.ndarray) -> None:
        with self._lock:
            self._items[(model, query)] = vector
            self._items.move_to_end((model, query))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


QUERY_CACHE = QueryVectorCache()


def embed_query(embedder: Any, query: str, cache: QueryVectorCache = QUERY_CACHE) -> tuple[np.ndarray, bool]:
    """The query's vector and whether it came from the cache."""
    model = str(getattr(embedder, "model", type(embedder).__name__))
    key = " ".join(query.split())
    vector = cache.get(model, key)
    if vector is not None:
        return vector, True
    vector = np.asarray(embedder.embed_queries([key])[0], dtype=np.float32)
    cache.put(model, key, vector)
    return vector, False


@dataclass
class VectorHit:
    job_id: int
    distance: float


@dataclass
class VectorPlan:
    method: str                 # "hnsw" | "hnsw_iterative" | "exact"
    filter_rows: int | None     # matching rows (planner's estimate), None without a filter
    fallback: bool = False      # the iterative scan found too few rows: answered by the exact scan
    table_rows: float | None = None   # embedded vectors (pg_class estimate), read once when the cap needed it


def exact_max_rows(total: float) -> int:
    """The exact-scan cap for a table of ``total`` vectors: it grows with the square root of the size.

    The exact scan costs in proportion to the filter's matches ``m``; the iterative HNSW scan in
    proportion to the tuples it visits before ``limit`` of them pass, about ``limit * total / m``.
    The two are equal where ``m`` squared is proportional to ``total``. A fixed cap measured at
    100k postings sends a 0.7% filter of a 1M table (7,000 matches, past a cap of 4,000) on an
    iterative walk that visits ~14,000 tuples of a graph that no longer fits in shared buffers.
    Never below ``EXACT_MAX_ROWS``: on a small table both plans are cheap.
    """
    return int(EXACT_MAX_ROWS * max(1.0, math.sqrt(max(total, 0.0) / EXACT_REFERENCE_ROWS)))


def choose_plan(conn: psycopg.Connection, fsql: FilterSQL) -> VectorPlan:
    """Exact scan or iterative HNSW, by the planner's estimate of the filter's matches.

    The estimate only picks the cheaper plan, never what is found: an exact scan reads every
    filtered row whatever their number, and an iterative scan that returns fewer rows than
    asked falls back to the exact scan (``vector_candidates``). Counting the matches instead
    (up to the cap) cost 18-50 ms on 100k postings, more than the vector query itself.
    """
    if not fsql.selective:
        return VectorPlan("hnsw", None)   # only open/closed: iterative scan covers the closed few
    estimate = _estimated_rows(conn, fsql)
    if estimate <= EXACT_MAX_ROWS:
        return VectorPlan("exact", estimate)
    total = _embedded_rows(conn)
    return VectorPlan("exact" if estimate <= exact_max_rows(total) else "hnsw_iterative", estimate, table_rows=total)


def _estimated_rows(conn: psycopg.Connection, fsql: FilterSQL) -> int:
    """The planner's row estimate for the filter (planning only, about a millisecond)."""
    plan = one(conn.execute(f"EXPLAIN (FORMAT JSON) SELECT 1 FROM jobs j WHERE {fsql.where}", fsql.params))[0]
    try:
        return int(plan[0]["Plan"]["Plan Rows"])
    except (TypeError, KeyError, IndexError, ValueError):
        return 0   # unknown: the exact scan, complete whatever the number


def vector_candidates(
    conn: psycopg.Connection, model: ModelInfo, query_vector: np.ndarray, fsql: FilterSQL, limit: int,
    plan: VectorPlan,
) -> list[VectorHit]:
    if plan.filter_rows == 0:
        return []
    params: dict[str, Any] = dict(fsql.params)
    params["qv"] = np.asarray(query_vector, dtype=np.float32)
    if plan.method == "exact":
        return [VectorHit(r[0], float(r[1])) for r in conn.execute(exact_sql(model, fsql, limit), params)]
    query = hnsw_sql(model, fsql, limit)
    ef_search = max(EF_SEARCH, int(limit))
    scan_tuples = MIN_SCAN_TUPLES
    if plan.method == "hnsw_iterative" and plan.filter_rows:
        total = plan.table_rows if plan.table_rows is not None else _embedded_rows(conn)
        # Expect to visit limit / selectivity tuples; allow a margin, within bounds.
        scan_tuples = int(min(MAX_SCAN_TUPLES, max(MIN_SCAN_TUPLES, 4 * limit * total / plan.filter_rows)))
    rows = conn.execute(query, params | hnsw_params(ef_search, scan_tuples)).fetchall()
    hits = [VectorHit(r[0], float(r[1])) for r in rows]
    if plan.method == "hnsw_iterative" and len(hits) < limit:
        # Fewer matches than asked: the filter is rarer than estimated, or the scan hit its
        # tuple bound. The exact scan over the filtered rows is then complete and cheap enough.
        plan.fallback = True
        return [VectorHit(r[0], float(r[1])) for r in conn.execute(exact_sql(model, fsql, limit), params)]
    hits.sort(key=lambda h: (h.distance, h.job_id))   # relaxed_order may return slightly out of order
    return hits


def exact_sql(model: ModelInfo, fsql: FilterSQL, limit: int) -> sql.Composed:
    """Exact nearest neighbours among the filtered rows.

    cosine_distance() instead of <=>: the function form never matches the index, so this is
    a true exact scan over the filtered rows, whatever the planner estimates.
    """
    cast = sql.SQL("vector({})").format(sql.Literal(int(model.dims)))
    return sql.SQL(
        "SELECT e.job_id, cosine_distance(e.embedding::{cast}, %(qv)s::{cast}) AS dist "
        "FROM jobs j JOIN job_embeddings e ON e.job_id = j.job_id AND e.model = {model} "
        "WHERE {where} ORDER BY dist, e.job_id LIMIT {limit}"
    ).format(cast=cast, model=sql.Literal(model.model), where=sql.SQL(fsql.where), limit=sql.Literal(int(limit)))


#: The scan's settings, made in the statement itself. An uncompared scalar subquery is a
#: one-time filter, evaluated before the scan returns its first row, which is when pgvector
#: reads them (a test pins it: ef_search below the rows asked for would cut the answer), and
#: ``set_config(..., true)`` lasts for the transaction: in autocommit mode this statement. The
#: same as ``SET LOCAL`` three times inside a transaction, in one round trip instead of six
#: (BEGIN, three SETs, the query, COMMIT: ~1.5 against ~0.6 ms at 100k postings).
_HNSW_SETTINGS = (
    "(SELECT set_config('hnsw.iterative_scan', %(hnsw_iterative)s, true)"
    " || set_config('hnsw.ef_search', %(hnsw_ef_search)s, true)"
    " || set_config('hnsw.max_scan_tuples', %(hnsw_max_scan_tuples)s, true)) IS NOT NULL"
)


def hnsw_params(ef_search: int, scan_tuples: int) -> dict[str, str]:
    """The parameters of ``_HNSW_SETTINGS``: an iterative scan (relaxed order) of this effort."""
    return {"hnsw_iterative": "relaxed_order", "hnsw_ef_search": str(int(ef_search)),
            "hnsw_max_scan_tuples": str(int(scan_tuples))}


def hnsw_sql(model: ModelInfo, fsql: FilterSQL, limit: int) -> sql.Composed:
    """Approximate nearest neighbours through the model's partial HNSW index.

    ``fsql.where`` is built by filters.py from fixed fragments; its values are parameters, and
    the statement sets the scan's own settings (``_HNSW_SETTINGS``: the parameters
    ``hnsw_iterative``, ``hnsw_ef_search``, ``hnsw_max_scan_tuples``).
    Each candidate the graph walk yields is checked against the filter on its ``jobs`` row:
    not on its narrower ``job_terms`` copy, which exists only once the keyword-terms step has
    run for it (a posting embedded before its terms, or a store without them, would be missed).
    """
    cast = sql.SQL("vector({})").format(sql.Literal(int(model.dims)))
    return sql.SQL(
        "SELECT e.job_id, (e.embedding::{cast} <=> %(qv)s::{cast}) AS dist "
        "FROM job_embeddings e JOIN jobs j ON j.job_id = e.job_id "
        "WHERE {settings} AND e.model = {model} AND {where} "
        "ORDER BY e.embedding::{cast} <=> %(qv)s::{cast} LIMIT {limit}"
    ).format(cast=cast, settings=sql.SQL(_HNSW_SETTINGS), model=sql.Literal(model.model), where=sql.SQL(fsql.where),
             limit=sql.Literal(int(limit)))


def _embedded_rows(conn: psycopg.Connection) -> float:
    row = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'job_embeddings'::regclass").fetchone()
    return float(row[0]) if row and row[0] and row[0] > 0 else float(EXACT_MAX_ROWS * 10)

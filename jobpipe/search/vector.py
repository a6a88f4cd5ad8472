"""The vector leg: the active model's HNSW index, or an exact scan when a filter is selective.

A filtered HNSW query walks the graph in distance order and drops rows the filter rejects;
with a ~1% filter it returns almost nothing (measured: recall 0.04 at 20k vectors). So the
filter's selectivity is estimated first (the planner's row estimate): a small set is
scanned exactly (every match, true order, a few ms); a large one goes through HNSW with
``hnsw.iterative_scan = relaxed_order``, which keeps walking until enough rows pass the
filter, and falls back to the exact scan if it still returns too few.

The HNSW SQL matches the store's per-model partial index exactly:
``ON job_embeddings USING hnsw ((l2_normalize(embedding::vector(DIMS))::halfvec(DIMS)) halfvec_cosine_ops)
WHERE model = '<model>'``.
The model name is inlined as a literal (never a bound parameter) so that even a generic
prepared plan can prove the partial index's predicate.

The exact scan reads ``job_filter_vectors`` (sql/0030): each vector at half precision beside
copies of its posting's filter columns, so a match costs one narrow row, and re-checks the
float distance of every row that could belong to the top ``limit`` (:func:`exact_sql`).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from pgvector import HalfVector
from psycopg import sql

from jobpipe.db.rows import one
from jobpipe.search.filters import FilterSQL
from jobpipe.store.index import vector_expr
from jobpipe.store.models import ModelInfo
from jobpipe.store.term_lists import COMBINED_PREFIXES, INDEXED_KEYS, REMOTE_KEY, combined_key, job_type_key

#: At most this many filter matches: exact scan, at ``EXACT_REFERENCE_ROWS`` vectors (see
#: :func:`exact_max_rows` for other sizes). Measured on 100k postings (2026-12-06, warm cache,
#: ``bench/bench_vector_plan.py``; docs/search.md "Vector leg"): the exact scan costs ~2 µs per
#: match (one ``job_filter_vectors`` row each); the iterative HNSW scan visits about
#: ``limit / selectivity`` tuples: ~30 ms at 4-5% selectivity, ~17-22 ms at 8%, ~16 ms at 10%,
#: ~9 ms at 20%. They cost the same near 9,000 matches (8-10%), where the exact scan also finds
#: the true top rows (the iterative scan's recall@100 is ~0.83 there).
EXACT_MAX_ROWS = 9_000
EXACT_REFERENCE_ROWS = 100_000
#: HNSW candidate list size; at least the number of rows asked for.
EF_SEARCH = 100
#: pgvector's bound on hnsw.ef_search. A deeper request (a library caller's top_k of a few
#: hundred) scans on iteratively (``hnsw.iterative_scan``) rather than failing.
EF_SEARCH_MAX = 1000
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
    factor = COVERED_CAP_FACTOR if covered(fsql) else 1.0
    if estimate <= EXACT_MAX_ROWS * factor:
        return VectorPlan("exact", estimate)
    total = _embedded_rows(conn)
    exact = estimate <= exact_max_rows(total) * factor
    return VectorPlan("exact" if exact else "hnsw_iterative", estimate, table_rows=total)


def _estimated_rows(conn: psycopg.Connection, fsql: FilterSQL) -> int:
    """The planner's row estimate for the filter (planning only, about a millisecond)."""
    plan = one(conn.execute(f"EXPLAIN (FORMAT JSON) SELECT 1 FROM jobs j WHERE {fsql.where}", fsql.params))[0]
    try:
        return int(plan[0]["Plan"]["Plan Rows"])
    except (TypeError, KeyError, IndexError, ValueError):
        return 0   # unknown: the exact scan, complete whatever the number


#: Per-statement settings of the exact scan, made before it is planned. It gains neither from JIT
#: compilation (a plan costed past ``jit_above_cost`` on a large table would spend tens of ms
#: compiling) nor from parallel workers: a parallel exact scan measured 4.5x slower at 1%
#: selectivity (worker start-up, 2 cores).
STATEMENT_SETTINGS = {"jit": "off", "max_parallel_workers_per_gather": "0"}


def vector_candidates(
    conn: psycopg.Connection, model: ModelInfo, query_vector: np.ndarray, fsql: FilterSQL, limit: int,
    plan: VectorPlan,
) -> list[VectorHit]:
    if plan.filter_rows == 0:
        return []
    params: dict[str, Any] = dict(fsql.params)
    params["qv"] = np.asarray(query_vector, dtype=np.float32)
    if plan.method == "exact":
        return _exact(conn, model, fsql, limit, params)
    query = hnsw_sql(model, fsql, limit)
    ef_search = min(max(EF_SEARCH, int(limit)), EF_SEARCH_MAX)
    scan_tuples = MIN_SCAN_TUPLES
    if plan.method == "hnsw_iterative" and plan.filter_rows:
        total = plan.table_rows if plan.table_rows is not None else _embedded_rows(conn)
        # Expect to visit limit / selectivity tuples; allow a margin, within bounds.
        scan_tuples = int(min(MAX_SCAN_TUPLES, max(MIN_SCAN_TUPLES, 4 * limit * total / plan.filter_rows)))
    # The HNSW statement sets its scan settings itself (one round trip); it needs neither of
    # STATEMENT_SETTINGS: its plan is a LIMIT over an index scan, costed far below JIT and never parallel.
    rows = conn.execute(query, params | {"qh": half_query(params["qv"])} | hnsw_params(ef_search, scan_tuples)).fetchall()
    hits = [VectorHit(int(r[0]), float(r[1])) for r in rows]
    if plan.method == "hnsw_iterative" and len(hits) < limit:
        # Fewer matches than asked: the filter is rarer than estimated, or the scan hit its
        # tuple bound. The exact scan over the filtered rows is then complete and cheap enough.
        plan.fallback = True
        return _exact(conn, model, fsql, limit, params)
    hits.sort(key=lambda h: (h.distance, h.job_id))   # relaxed_order may return slightly out of order
    return hits


def _exact(conn: psycopg.Connection, model: ModelInfo, fsql: FilterSQL, limit: int,
           params: dict[str, Any]) -> list[VectorHit]:
    where, key_params = exact_filter(fsql, int(model.dims))
    params = {**params, **key_params, "qh": half_query(params["qv"])}
    return _run(conn, exact_sql(model, fsql, limit, where), params, STATEMENT_SETTINGS)


#: A filter naming at least this many equality values (city, job type, skill, stated remote) is
#: found through ``job_filter_vectors_keys`` (sql/0031, sql/0033), one GIN scan for all of them.
KEYED_MIN_VALUES = 2
#: Vectors of at most this many dimensions are in the covering indexes of stated remote and of the
#: job types (sql/0034, sql/0035, whose predicates state the same number): a btree entry holds
#: ~2,700 bytes, a 1,000-dim halfvec 2,008. The scan states the bound too, so the planner can
#: prove the index's predicate.
COVERED_MAX_DIMS = 1000
_COVERED = f"vector_dims(j.embedding) <= {COVERED_MAX_DIMS}"
#: The job type sql/0035 leaves out of its covering index: the common one, answered through the graph.
COMMON_JOB_TYPE = "full_time"
#: Keys whose column has no index of its own on ``job_filter_vectors`` since sql/0034-0035 (the
#: covering indexes replaced the btrees): one such value outside a covering index is found
#: through its filter key.
_NO_COLUMN_INDEX = (REMOTE_KEY, job_type_key(""))


def _covering(key: str) -> str | None:
    """For a key whose rows a covering index holds, what the scan adds to prove its predicate.

    Stated remote's predicate terms are already ``fsql.where``'s, literally; a job type is a bound
    parameter there, which a generic plan cannot prove different from full-time, so that is
    stated as a literal.
    """
    if key == REMOTE_KEY:
        return f" AND {_COVERED}"
    if key.startswith(job_type_key("")) and key != job_type_key(COMMON_JOB_TYPE):
        return f" AND j.job_type <> '{COMMON_JOB_TYPE}' AND {_COVERED}"
    return None


#: A filter read from a covering index costs the exact scan about half as much per match, so the
#: exact plan's cap is this much higher for it. Measured at 100k (bench_vector_plan.py, 2026-12-07,
#: 40 queries): intern's 8,233 matches 9.7 ms exact against 21.9 iterative, stated remote's 9,870
#: 13.8 against 18.6, where a city of 8,200 costs 21-22 ms either way; the iterative walk takes
#: ~17 ms at 10% and ~10 ms at 20%, so covered scans meet it near 12,000 matches, not 9,000.
COVERED_CAP_FACTOR = 1.3


def covered(fsql: FilterSQL, dims: int | None = None) -> bool:
    """Whether the exact scan reads this filter's rows from a covering index (:func:`exact_filter`).

    ``dims`` None: the model is not known yet (the plan is chosen before the vector leg reads
    it), and a model of more than ``COVERED_MAX_DIMS`` is then taken to fit as the usual ones do.
    """
    keys = [key for key, _ in fsql.list_keys]
    return (not fsql.include_closed and fsql.residual is not None and len(keys) == 1
            and _covering(keys[0]) is not None and (dims is None or dims <= COVERED_MAX_DIMS))


def exact_filter(fsql: FilterSQL, dims: int) -> tuple[str, dict[str, Any]]:
    """The exact scan's condition on ``job_filter_vectors j``, and the parameters it adds.

    Two or more equality values become one containment test on the row's filter keys
    (``jobpipe_filter_keys``, sql/0031, and the combinations of city, job type and stated remote,
    sql/0033): its GIN index finds the rows holding all of them in one scan, where the
    per-column indexes each build a bitmap of every row of their value and AND them (measured at
    1M postings: Berlin + intern + remote, 7,001 rows, 70-76 -> 25-31 ms; at 100k, Shanghai +
    intern 6.5-8.4 -> 4.5-5.4 ms). Two or three of city, job type and remote are asked as their
    one combined key, whose posting list holds exactly their shared rows: the GIN scan of the
    three single keys decoded every entry of each (11.2 ms of those 26 at 1M, 0.65 ms combined).
    One city or skill keeps its column's own index. Stated remote alone, or one job type but
    full-time, is read from its covering index (sql/0034, sql/0035: the rows and their vectors
    side by side, an index-only scan at about half the time of a visit to each row) when the
    model's vectors fit in it, else through its key (those columns have no other index). The keys
    stand for exactly the conditions ``fsql.list_keys`` pairs them with; the rest
    (``fsql.residual``) is checked on the row. A search that includes closed postings keeps
    ``fsql.where``: the indexes hold open rows.
    """
    keys = [key for key, _ in fsql.list_keys]
    if fsql.include_closed or fsql.residual is None:
        return fsql.where, {}
    if covered(fsql, dims):
        return fsql.where + (_covering(keys[0]) or ""), {}
    if len(keys) < KEYED_MIN_VALUES and not (keys and keys[0].startswith(_NO_COLUMN_INDEX)):
        return fsql.where, {}
    combined = [k for k in keys if k.startswith(COMBINED_PREFIXES)]
    if len(combined) >= 2:
        keys = [combined_key(combined)] + [k for k in keys if k not in combined]
    where = f"j.closed_at IS NULL AND ({INDEXED_KEYS.format(alias='j.')}) @> %(f_keys)s::text[]"
    if fsql.residual != "TRUE":
        where += f" AND {fsql.residual}"
    return where, {"f_keys": keys}


def _run(conn: psycopg.Connection, query: sql.Composed, params: dict[str, Any],
         settings: dict[str, str]) -> list[VectorHit]:
    """``query``'s rows with ``settings`` in force for it alone.

    The settings are local to a transaction (a savepoint inside the caller's) that is rolled
    back once the rows are read: nothing leaks into the caller's later statements.
    """
    names = list(settings)
    with conn.transaction(force_rollback=True):
        conn.execute(sql.SQL("SELECT ") + sql.SQL(", ").join(
            sql.SQL("set_config({}, {}, true)").format(sql.Literal(n), sql.Literal(settings[n])) for n in names))
        rows = conn.execute(query, params).fetchall()
    return [VectorHit(int(r[0]), float(r[1])) for r in rows]


def half_query(query_vector: np.ndarray) -> HalfVector:
    """The query as the exact scan's first pass compares it: unit length, half precision."""
    vector = np.asarray(query_vector, dtype=np.float64)
    norm = float(np.linalg.norm(vector))
    return HalfVector((vector / norm if norm > 0 else vector).astype(np.float16))


def half_distance_error(dims: int) -> float:
    """A bound on how far a cosine distance at half precision lies from the float one.

    Both sides of the half-precision distance are unit vectors rounded to half precision: each
    component moves by at most 2^-10 of itself (either rounding mode), or 2^-24 below half
    precision's normal range, so each vector turns by at most ``asin(2^-10 + 2^-24 sqrt(dims))``
    and the distance, ``1 - cos(angle)``, moves by at most the two turns together. Each distance
    is a sum of ``dims`` single-precision products, within ``3 dims 2^-24`` of its true value.
    At 512 dimensions: 0.0021 (measured differences on the speed bench: at most 0.00007).
    """
    turn = math.asin(2.0 ** -10 + 2.0 ** -24 * math.sqrt(dims))
    return 2 * turn + 6 * dims * 2.0 ** -24


def exact_sql(model: ModelInfo, fsql: FilterSQL, limit: int, where: str | None = None) -> sql.Composed:
    """Exact nearest neighbours among the filtered rows: every match, the float scan's order.

    A first pass reads the filtered ``job_filter_vectors`` rows (``%(qh)s``, the query at half
    precision: :func:`half_query`) and ranks them by half-precision distance. With ``err`` its
    greatest error (:func:`half_distance_error`) and ``cut`` the ``limit``-th smallest of those
    distances, each of the float scan's top ``limit`` rows lies within ``cut + 2 err``: the
    ``limit`` rows at or below ``cut`` are within ``cut + err`` in float, so the float scan's
    ``limit``-th distance is too, and a row at that distance or nearer is at most ``err`` further
    at half precision. Only those rows (~110 of the 8,000 an 8% filter matches at 100k) get their
    float distance from ``job_embeddings``, which orders the answer (ties by job_id), as a
    float scan over all the filtered rows would. A filter with fewer than ``limit`` matches
    re-checks them all (no cut); a NaN distance (a zero vector) is past every cut, as in the
    float order.

    ``cosine_distance()`` instead of ``<=>``: the function form never matches the HNSW index, so
    this is a true exact scan whatever the planner estimates. ``where``: the condition on the
    filtered rows (:func:`exact_filter`), ``fsql.where`` if not given.
    """
    dims = int(model.dims)
    cast = sql.SQL("vector({})").format(sql.Literal(dims))
    half = sql.SQL("halfvec({})").format(sql.Literal(dims))
    return sql.SQL(
        "WITH c AS MATERIALIZED ("
        "SELECT j.job_id, cosine_distance(j.embedding, %(qh)s::{half}) AS dh "
        "FROM job_filter_vectors j WHERE j.model = {model} AND {where}) "
        "SELECT e.job_id, cosine_distance(e.embedding::{cast}, %(qv)s::{cast}) AS dist "
        "FROM job_embeddings e "
        "WHERE e.model = {model} AND e.job_id = ANY(ARRAY("
        "SELECT c.job_id FROM c WHERE c.dh <= (SELECT coalesce(max(k.dh), 'Infinity') "
        "FROM (SELECT dh FROM c ORDER BY dh LIMIT 1 OFFSET {last}) k) + {window})) "
        "ORDER BY dist, e.job_id LIMIT {limit}"
    ).format(half=half, cast=cast, model=sql.Literal(model.model), where=sql.SQL(where or fsql.where),
             last=sql.Literal(max(0, int(limit) - 1)), window=sql.Literal(2 * half_distance_error(dims)),
             limit=sql.Literal(int(limit)))


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
    """Approximate nearest neighbours through the model's partial HNSW index, with float distances.

    The index (``jobpipe.store.index``) orders ``job_embeddings`` rows by half-precision distance;
    each candidate's filter is checked on its ``job_filter_vectors`` row, the narrow copy of the
    posting's filter columns written with the vector itself (so no embedded posting is ever
    missing from it, as it would be from ``job_terms`` before the keyword-terms step), and its
    float distance is read from the row the walk already visits: the distance the exact scan
    returns, so a job's distance, and the match score built on it, never depends on which plan
    found it. Relaxed order: the caller re-sorts by it.

    ``fsql.where`` is built by filters.py from fixed fragments; its values are parameters, and
    the statement sets the scan's own settings (``_HNSW_SETTINGS``: the parameters
    ``hnsw_iterative``, ``hnsw_ef_search``, ``hnsw_max_scan_tuples``). ``%(qh)s`` is the query
    at half precision (:func:`half_query`: unit length, so no component can overflow it),
    ``%(qv)s`` as given.
    """
    dims = sql.Literal(int(model.dims))
    return sql.SQL(
        "SELECT e.job_id, cosine_distance(e.embedding::vector({dims}), %(qv)s::vector({dims})) AS dist "
        "FROM job_embeddings e JOIN job_filter_vectors j ON j.job_id = e.job_id AND j.model = e.model "
        "WHERE {settings} AND e.model = {model} AND {where} "
        "ORDER BY {expr} <=> %(qh)s::halfvec({dims}) LIMIT {limit}"
    ).format(dims=dims, settings=sql.SQL(_HNSW_SETTINGS), model=sql.Literal(model.model), where=sql.SQL(fsql.where),
             expr=vector_expr(int(model.dims), table="e"), limit=sql.Literal(int(limit)))


def _embedded_rows(conn: psycopg.Connection) -> float:
    row = conn.execute("SELECT reltuples FROM pg_class WHERE oid = 'job_embeddings'::regclass").fetchone()
    return float(row[0]) if row and row[0] and row[0] > 0 else float(EXACT_MAX_ROWS * 10)

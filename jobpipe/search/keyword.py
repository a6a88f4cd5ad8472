"""The full-text leg: IDF-weighted concept matching on ``jobs.search_tsv`` plus a title bonus.

Why not plain ``ts_rank_cd`` over an OR query: it has no notion of how rare a word is, so a
long paraphrased query ("...要有3-5年经验，负责...") is ranked by its most common words.
Here each concept scores its inverse document frequency (BM25's IDF, with BM25's length
normalization and term frequency taken as 1), read for free from the lexeme frequencies
``ANALYZE`` keeps in ``pg_stats`` (sql/0005_search.sql raises their number). A concept
found in the title (``jobs.title_tsv``, Chinese as character bigrams) earns its IDF again:
the title says what the job *is*, the description mentions everything.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import psycopg

from jobpipe.search.filters import FilterSQL
from jobpipe.search.query_terms import Concept

#: BM25 length normalization (term frequency is not used, so k1 only shapes the curve).
K1 = 1.2
B = 0.75
#: Weight of a title match relative to a description match.
TITLE_WEIGHT = 1.0
#: Words in more than this share of postings only score, they do not retrieve (speed).
RETRIEVE_MAX_FREQ = 0.25
#: Below this many rows an unanalyzed table is counted exactly for document frequencies.
_EXACT_DF_MAX_ROWS = 50_000
_AVGDL_TTL_S = 600.0


@dataclass
class Alt:
    body_q: str | None
    title_q: str | None
    weight: float
    idf: float
    freq: float


@dataclass
class PreparedConcept:
    label: str
    alts: list[Alt]


_prepare_sql = """
WITH st AS (
    SELECT attname, most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
    FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = 'jobs' AND attname = 'search_tsv'
)
SELECT a.i,
       CASE WHEN a.t ~ '[\\u3400-\\u9fff\\uf900-\\ufaff]' THEN plainto_tsquery('simple', a.t)
            ELSE phraseto_tsquery('simple', a.t) END::text,
       phraseto_tsquery('simple', jobpipe_title_terms(a.raw))::text,
       (SELECT array_agg(st.freqs[array_position(st.elems, l)])
          FROM unnest(tsvector_to_array(to_tsvector('simple', a.t))) AS l, st),
       (SELECT st.freqs[cardinality(st.elems) + 1] FROM st),
       (SELECT reltuples FROM pg_class WHERE oid = 'jobs'::regclass)
FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS a(t, raw, i)
ORDER BY a.i
"""

_avgdl_cache: dict[str, tuple[float, float]] = {}
_avgdl_lock = threading.Lock()


def _idf(freq: float, total: float) -> float:
    n = max(total, 1.0)
    df = freq * n
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _avg_doc_length(conn: psycopg.Connection) -> float:
    """Mean lexemes per posting, from a sample, cached per database for a few minutes."""
    key = conn.info.dbname + "@" + str(conn.info.host)
    now = time.monotonic()
    with _avgdl_lock:
        hit = _avgdl_cache.get(key)
    if hit and now - hit[1] < _AVGDL_TTL_S:
        return hit[0]
    row = conn.execute(
        "SELECT avg(length(search_tsv)) FROM (SELECT search_tsv FROM jobs WHERE closed_at IS NULL LIMIT 2000) s"
    ).fetchone()
    value = float(row[0]) if row and row[0] else 100.0
    with _avgdl_lock:
        _avgdl_cache[key] = (value, now)
    return value


def prepare_concepts(conn: psycopg.Connection, concepts: list[Concept]) -> list[PreparedConcept]:
    """Turn concepts into tsqueries (the database parses them, as it parsed the postings) with IDFs."""
    from jobpipe.text.tokenize import search_tokens

    flat = [(ci, alt) for ci, c in enumerate(concepts) for alt in c.alternatives]
    if not flat:
        return []
    rows = conn.execute(_prepare_sql, ([search_tokens(a.text) for _, a in flat], [a.text for _, a in flat])).fetchall()
    reltuples = rows[0][5] if rows else 0
    have_stats = rows and rows[0][4] is not None
    total = float(reltuples) if reltuples and reltuples > 0 else 0.0
    freqs: list[float] = []
    if have_stats:
        floor = float(rows[0][4]) / 2.0   # untracked lexemes are rarer than the rarest tracked one
        for row in rows:
            lexeme_freqs = [f if f is not None else floor for f in (row[3] or [])]
            freqs.append(min(lexeme_freqs) if lexeme_freqs else floor)
    else:
        freqs, total = _count_frequencies(conn, [r[1] for r in rows])
    prepared = [PreparedConcept(c.label, []) for c in concepts]
    for (ci, alt), row, freq in zip(flat, rows, freqs):
        body_q = row[1] or None
        title_q = row[2] or None
        if body_q is None and title_q is None:
            continue
        prepared[ci].alts.append(Alt(body_q, title_q, alt.weight, _idf(freq, total), freq))
    return [p for p in prepared if p.alts]


def _count_frequencies(conn: psycopg.Connection, queries: list[str | None]) -> tuple[list[float], float]:
    """Document frequencies by counting, for a table ANALYZE has not seen yet (small by then)."""
    total_row = conn.execute("SELECT count(*) FROM (SELECT 1 FROM jobs LIMIT %s) s", (_EXACT_DF_MAX_ROWS + 1,)).fetchone()
    total = float(total_row[0]) if total_row else 0.0
    if total > _EXACT_DF_MAX_ROWS or total == 0 or not any(queries):
        return [0.01] * len(queries), max(total, 1.0)   # unknown: every word equally informative
    parts = ", ".join(f"count(*) FILTER (WHERE search_tsv @@ %s::tsquery)" for q in queries if q)
    counts = iter(conn.execute(f"SELECT {parts} FROM jobs", [q for q in queries if q]).fetchone() or ())
    return [(next(counts) / total) if q else 0.0 for q in queries], total


@dataclass
class KeywordHit:
    job_id: int
    score: float


def keyword_candidates(
    conn: psycopg.Connection, concepts: list[PreparedConcept], fsql: FilterSQL, limit: int,
    *, title_weight: float = TITLE_WEIGHT,
) -> list[KeywordHit]:
    """Best ``limit`` postings satisfying the filters, by concept score (empty without concepts)."""
    if not concepts:
        return []
    params: dict[str, Any] = dict(fsql.params)
    body_terms, title_terms, retrieve_body, retrieve_title = [], [], [], []
    common_body = []
    for ci, concept in enumerate(concepts):
        body_cases, title_cases = [], []
        for ai, alt in enumerate(concept.alts):
            weight = alt.weight * alt.idf
            if alt.body_q:
                name = f"b{ci}_{ai}"
                params[name] = alt.body_q
                body_cases.append(f"CASE WHEN d.tsv @@ %({name})s::tsquery THEN {weight:.5f} ELSE 0 END")
                (retrieve_body if alt.freq <= RETRIEVE_MAX_FREQ else common_body).append(alt.body_q)
            if alt.title_q:
                name = f"t{ci}_{ai}"
                params[name] = alt.title_q
                title_cases.append(f"CASE WHEN j.title_tsv @@ %({name})s::tsquery THEN {weight:.5f} ELSE 0 END")
                retrieve_title.append(alt.title_q)
        if body_cases:
            body_terms.append(body_cases[0] if len(body_cases) == 1 else f"GREATEST({', '.join(body_cases)})")
        if title_cases:
            title_terms.append(title_cases[0] if len(title_cases) == 1 else f"GREATEST({', '.join(title_cases)})")
    if not retrieve_body:
        retrieve_body = common_body
    retrieve = []
    if retrieve_body:
        params["rb"] = " | ".join(f"( {q} )" for q in retrieve_body)
        retrieve.append("j.search_tsv @@ %(rb)s::tsquery")
    if retrieve_title:
        params["rt"] = " | ".join(f"( {q} )" for q in retrieve_title)
        retrieve.append("j.title_tsv @@ %(rt)s::tsquery")
    avgdl = _avg_doc_length(conn)
    norm = f"({K1 + 1:.3f} / (1 + {K1:.3f} * (1 - {B:.3f} + {B:.3f} * length(d.tsv) / {avgdl:.3f})))"
    body_sum = " + ".join(body_terms) or "0"
    title_sum = " + ".join(title_terms) or "0"
    # The lateral copy detoasts search_tsv once per row instead of once per concept test.
    query = f"""
        SELECT j.job_id, {norm} * ({body_sum}) + {title_weight:.4f} * ({title_sum}) AS score
        FROM jobs j
        CROSS JOIN LATERAL (SELECT j.search_tsv || ''::tsvector AS tsv OFFSET 0) d
        WHERE ({' OR '.join(retrieve)}) AND {fsql.where}
        ORDER BY score DESC, j.job_id
        LIMIT {int(limit)}
    """
    return [KeywordHit(r[0], float(r[1])) for r in conn.execute(query, params)]  # type: ignore[arg-type]


def browse_candidates(conn: psycopg.Connection, fsql: FilterSQL, limit: int) -> list[KeywordHit]:
    """No words to match (empty query, or only filter words): newest postings first."""
    rows = conn.execute(
        f"SELECT j.job_id FROM jobs j WHERE {fsql.where} ORDER BY j.posted_at DESC NULLS LAST, j.job_id DESC "
        f"LIMIT {int(limit)}",
        fsql.params,
    ).fetchall()
    return [KeywordHit(r[0], 0.0) for r in rows]

"""The full-text leg: IDF-weighted concept matching on ``job_terms.search_tsv`` plus a title bonus.

Why not plain ``ts_rank_cd`` over an OR query: it has no notion of how rare a word is, so a
long paraphrased query ("...要有3-5年经验，负责...") is ranked by its most common words.
Here each concept scores its inverse document frequency (BM25's IDF, with BM25's length
normalization and term frequency taken as 1), read for free from the lexeme frequencies
``ANALYZE`` keeps in ``pg_stats`` (sql/0005_search.sql raises their number). A concept
found in the title (``job_terms.title_tsv``, Chinese as character bigrams) earns its IDF again:
the title says what the job *is*, the description mentions everything.

The terms live in their own narrow table (sql/0009) with copies of the filtered columns: a
lookup visits small heap rows to read a length and check the filters, never the wide ``jobs`` row.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import psycopg

from jobpipe.search.filters import FilterSQL
from jobpipe.search.lists import list_candidates
from jobpipe.search.query_terms import Alternative, Concept
from jobpipe.text.tokenize import search_tokens

#: BM25 length normalization (term frequency is not used, so k1 only shapes the curve).
K1 = 1.2
B = 0.75
#: Weight of a title match relative to a description match.
TITLE_WEIGHT = 1.0
#: Expected matching rows the GIN lookups of one query may visit, rarest words first (speed).
ROW_BUDGET = 4_000
#: Expected rows the lookups of a family's tools may add (``query_terms.FAMILY_TERMS``): a budget
#: of their own, so widening a concept never leaves out a word the user typed.
FAMILY_ROW_BUDGET = 2_000
#: At most this many rows per lookup (a word in nearly every posting).
BRANCH_CAP = 4_000
#: A single filter condition matching at most this many postings is combined with the word
#: lookups inside the indexes (BitmapAnd); anything else is checked on the matched rows only.
#: Measured on 100k postings: a BitmapAnd reads the filter's whole index range again for every
#: lookup (~0.3 µs per filter row, 5.5 ms for city=Beijing's 20k rows, times ~6 lookups), while
#: checking a row already visited costs nothing extra. Two broad conditions that are selective
#: only together (Shanghai + intern: 20% x 8%) are both ANDed in: 43 ms against 24 ms fenced;
#: one narrow condition (Zhengzhou, 1%): 9 ms against 28 ms fenced.
INDEX_FILTER_MAX_ROWS = 2_500
#: Read the store's posting lists when they are current (jobpipe.search.lists); False runs
#: every lookup as the GIN statement (the speed bench compares the two).
USE_LISTS = True
#: Below this many rows an unanalyzed table is counted exactly for document frequencies.
_EXACT_DF_MAX_ROWS = 50_000
_AVGDL_TTL_S = 600.0


@dataclass
class Alt:
    body_q: str | None
    title_q: str | None
    weight: float
    idf: float
    freq: float            # share of postings whose description has it
    title_freq: float      # share of postings whose title has it
    total: float           # postings in the table (estimate)


@dataclass
class PreparedConcept:
    label: str
    alts: list[Alt]
    weight: float = 1.0   # Concept.weight: a share of the IDF (parts of longer query words)
    #: Names tools of a family the query names: looked up only within the row budget the
    #: query's own words leave.
    family: bool = False


# The database parses query words exactly as it parsed the postings ('simple' config).
_PARSE_SQL = """
SELECT plainto_tsquery('simple', a.t)::text,
       phraseto_tsquery('simple', jobpipe_title_terms(a.raw))::text,
       tsvector_to_array(to_tsvector('simple', a.t)),
       tsvector_to_array(to_tsvector('simple', jobpipe_title_terms(a.raw)))
FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS a(t, raw, i)
ORDER BY a.i
"""

_STATS_SQL = """
SELECT attname, most_common_elems::text::text[], most_common_elem_freqs,
       (SELECT reltuples FROM pg_class WHERE oid = 'job_terms'::regclass)
FROM pg_stats
WHERE schemaname = current_schema() AND tablename = 'job_terms' AND attname IN ('search_tsv', 'title_tsv')
"""
#: How long lexeme frequencies are reused before pg_stats is read again.
_STATS_TTL_S = 120.0


@dataclass
class _TermStats:
    """Lexeme -> share of postings, for descriptions and titles, as ANALYZE last measured."""

    body: dict[str, float]
    title: dict[str, float]
    body_floor: float
    title_floor: float
    total: float
    loaded_at: float


_stats_cache: dict[str, _TermStats] = {}
_stats_lock = threading.Lock()


def _db_key(conn: psycopg.Connection) -> str:
    return f"{conn.info.host}:{conn.info.port}/{conn.info.dbname}"


def _term_stats(conn: psycopg.Connection) -> _TermStats | None:
    """pg_stats' lexeme frequencies, parsed once per database every couple of minutes."""
    key = _db_key(conn)
    now = time.monotonic()
    with _stats_lock:
        hit = _stats_cache.get(key)
    if hit is not None and now - hit.loaded_at < _STATS_TTL_S:
        return hit
    rows = {r[0]: r for r in conn.execute(_STATS_SQL)}
    body = rows.get("search_tsv")
    if body is None or not body[1]:
        return None
    title = rows.get("title_tsv")

    def table(row) -> tuple[dict[str, float], float]:
        if row is None or not row[1]:
            return {}, 0.0
        elems, freqs = row[1], row[2]
        # Lexemes ANALYZE did not keep are rarer than the rarest it kept.
        return dict(zip(elems, freqs)), float(freqs[len(elems)]) / 2.0

    body_map, body_floor = table(body)
    title_map, title_floor = table(title)
    stats = _TermStats(body_map, title_map, body_floor, title_floor or body_floor,
                       float(body[3]) if body[3] and body[3] > 0 else 1.0, now)
    with _stats_lock:
        _stats_cache[key] = stats
    return stats


_ParseRow = tuple[str | None, str | None, list[str] | None, list[str] | None]
#: Parsed query words per database: the parse is a pure function of the text (the same SQL
#: functions the postings went through), and words repeat across queries.
_parse_cache: dict[tuple[str, str, str], _ParseRow] = {}
_parse_lock = threading.Lock()
_PARSE_CACHE_MAX = 20_000


def _parse_terms(conn: psycopg.Connection, items: list[tuple[str, str]]) -> list[_ParseRow]:
    """(tokens, raw text) -> (body tsquery, title tsquery, body lexemes, title lexemes), cached."""
    key = _db_key(conn)
    with _parse_lock:
        found = {item: _parse_cache.get((key, *item)) for item in items}
    missing = list(dict.fromkeys(item for item, row in found.items() if row is None))
    if missing:
        rows = conn.execute(_PARSE_SQL, ([m[0] for m in missing], [m[1] for m in missing])).fetchall()
        with _parse_lock:
            if len(_parse_cache) + len(missing) > _PARSE_CACHE_MAX:
                _parse_cache.clear()
            for item, row in zip(missing, rows):
                parsed = (row[0], row[1], row[2], row[3])
                _parse_cache[(key, *item)] = parsed
                found[item] = parsed
    out: list[_ParseRow] = []
    for item in items:
        parsed_row = found[item]
        assert parsed_row is not None   # every missing item was parsed above
        out.append(parsed_row)
    return out


def prepare_concepts(conn: psycopg.Connection, concepts: list[Concept]) -> list[PreparedConcept]:
    """Concepts -> tsqueries with weights: every alternative scores its concept's IDF times its weight.

    The IDF is the word the user typed: how specific the *request* is. A rare plural or an
    odd translation must not outweigh it.
    """
    flat = [(ci, alt) for ci, c in enumerate(concepts) for alt in c.alternatives]
    romanized = {alt.romanizes for _, alt in flat if alt.romanizes is not None}
    if romanized:
        # A Latin word that some posting contains is that word (an English "women" is not 我们):
        # its pinyin reading is searched only when it matches nothing as typed.
        found = _words_found(conn, romanized)
        flat = [(ci, alt) for ci, alt in flat if alt.romanizes is None or alt.romanizes not in found]
    if not flat:
        return []
    rows = _parse_terms(conn, [(search_tokens(a.text), a.text) for _, a in flat])
    stats = _term_stats(conn)
    if stats is not None:
        total = stats.total
        freqs = [(_min_freq(r[2], stats.body, stats.body_floor), _min_freq(r[3], stats.title, stats.title_floor))
                 for r in rows]
    else:
        freqs, total = _count_frequencies(conn, [(r[0], r[1]) for r in rows])
    prepared = [PreparedConcept(c.label, [], c.weight, c.family_of is not None) for c in concepts]
    concept_idf: dict[int, float] = {}
    # A word read as pinyin is as specific as its reading (shuju, 数据: common), not as the
    # spelling no posting has (which would always get the highest IDF).
    for (ci, alt), (body_freq, _title_freq) in zip(flat, freqs):
        if alt.romanizes is not None:
            concept_idf[ci] = _idf(body_freq, total)
    union: dict[int, float] = {}
    for (ci, _alt), (body_freq, _title_freq) in zip(flat, freqs):
        if ci not in concept_idf:   # the first alternative is the word as typed
            concept_idf[ci] = _idf(body_freq, total)
        union[ci] = min(1.0, union.get(ci, 0.0) + body_freq)
    for ci, concept in enumerate(concepts):
        # A family's tools (Solidity for 智能合约) are no more specific than the word the user
        # typed, nor than all of them together: naming some one of them is common.
        if concept.family_of is not None and concept.family_of in concept_idf:
            concept_idf[ci] = min(concept_idf[concept.family_of], _idf(union[ci], total))
    chosen = _chosen_senses(concepts, flat, freqs)
    for (ci, alt), row, (body_freq, title_freq) in zip(flat, rows, freqs):
        if alt.sense is not None and alt.sense not in chosen[ci]:
            continue
        body_q = row[0] or None
        title_q = row[1] or None
        if body_q is None and title_q is None:
            continue
        prepared[ci].alts.append(Alt(body_q, title_q, alt.weight, concept_idf[ci], body_freq, title_freq, total))
    return [p for p in prepared if p.alts]


#: Latin words known to occur in some posting, per database, with when that was seen.
_found_cache: dict[tuple[str, str], float] = {}
_found_lock = threading.Lock()


def _words_found(conn: psycopg.Connection, words: set[str]) -> set[str]:
    """The plain Latin words some posting's terms contain.

    One index probe per word (``EXISTS``: the first match ends it, no match costs a GIN probe).
    A word found is remembered for ``_STATS_TTL_S``; a word not found is probed again next
    time, so a posting that starts to use it counts at once.
    """
    key = _db_key(conn)
    now = time.monotonic()
    with _found_lock:
        found = {w for w in words if now - _found_cache.get((key, w), -_STATS_TTL_S) < _STATS_TTL_S}
    missing = sorted(words - found)
    if missing:
        rows = conn.execute(
            "SELECT w FROM unnest(%s::text[]) AS w"
            " WHERE EXISTS (SELECT 1 FROM job_terms WHERE search_tsv @@ to_tsquery('simple', w))", (missing,)).fetchall()
        with _found_lock:
            if len(_found_cache) + len(rows) > _PARSE_CACHE_MAX:
                _found_cache.clear()
            for (word,) in rows:
                _found_cache[(key, word)] = now
                found.add(word)
    return found


def _chosen_senses(concepts: list[Concept], flat: list[tuple[int, Alternative]],
                   freqs: list[tuple[float, float]]) -> dict[int, set[str]]:
    """Per concept, the dictionary senses searched: its first, then those the catalogue uses most.

    The dictionary orders a word's senses its own way (全球: entire, total, global; 仓库: depot,
    storehouse, warehouse; 移动: move, movement, ..., mobile), and its second sense was often one
    no job posting uses, so the other language's posting shared no word with the question. The
    first sense stays (it is the word's main meaning; choosing all by use preferred generic words:
    事务 -> work over affairs); the other places go to the senses most postings contain (a gloss
    or its plural, whichever is commoner), a property of the catalogue, not of a query. Senses
    equally rare (none of them in the statistics) keep the dictionary's order.
    """
    usage: dict[int, dict[str, float]] = {}
    for (ci, alt), (body_freq, _title_freq) in zip(flat, freqs):
        if alt.sense is not None:
            senses = usage.setdefault(ci, {})
            senses[alt.sense] = max(senses.get(alt.sense, 0.0), body_freq)
    chosen: dict[int, set[str]] = {}
    for ci, senses in usage.items():
        order = {sense: i for i, sense in enumerate(senses)}
        first, *rest = senses
        ranked = sorted(rest, key=lambda sense: (-senses[sense], order[sense]))
        chosen[ci] = {first, *ranked[:max(concepts[ci].max_senses, 1) - 1]}
    return chosen


def _min_freq(lexemes: list[str] | None, table: dict[str, float], floor: float) -> float:
    """A multi-word alternative is as rare as its rarest word (an upper bound on the phrase)."""
    return min((table.get(lexeme, floor) for lexeme in lexemes or ()), default=floor)


_avgdl_cache: dict[str, tuple[float, float]] = {}
_avgdl_lock = threading.Lock()


def _idf(freq: float, total: float) -> float:
    n = max(total, 1.0)
    df = freq * n
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def _avg_doc_length(conn: psycopg.Connection) -> float:
    """Mean tokens per posting, from a sample, cached per database for a few minutes."""
    key = _db_key(conn)
    now = time.monotonic()
    with _avgdl_lock:
        hit = _avgdl_cache.get(key)
    if hit and now - hit[1] < _AVGDL_TTL_S:
        return hit[0]
    row = conn.execute("SELECT avg(search_length) FROM (SELECT search_length FROM job_terms LIMIT 5000) s").fetchone()
    value = float(row[0]) if row and row[0] else 200.0
    with _avgdl_lock:
        _avgdl_cache[key] = (value, now)
    return value


def _count_frequencies(
    conn: psycopg.Connection, queries: list[tuple[str | None, str | None]],
) -> tuple[list[tuple[float, float]], float]:
    """Document frequencies by counting, for a table ANALYZE has not seen yet (small by then)."""
    total_row = conn.execute("SELECT count(*) FROM (SELECT 1 FROM job_terms LIMIT %s) s",
                             (_EXACT_DF_MAX_ROWS + 1,)).fetchone()
    total = float(total_row[0]) if total_row else 0.0
    if total > _EXACT_DF_MAX_ROWS or total == 0:
        return [(0.01, 0.01)] * len(queries), max(total, 1.0)   # unknown: every word equally informative
    parts, params = [], []
    for body_q, title_q in queries:
        for column, q in (("search_tsv", body_q), ("title_tsv", title_q)):
            parts.append(f"count(*) FILTER (WHERE {column} @@ %s::tsquery)" if q else "0")
            if q:
                params.append(q)
    counts = list(conn.execute(f"SELECT {', '.join(parts)} FROM job_terms", params).fetchone() or ())
    return [(counts[2 * i] / total, counts[2 * i + 1] / total) for i in range(len(queries))], total


@dataclass
class KeywordHit:
    job_id: int
    score: float


@dataclass
class _Branch:
    column: str        # search_tsv | title_tsv
    query: str         # OR of the concept's alternatives
    concept: int
    weight: float
    rows: float        # expected matches (upper bound: the alternatives' sum)


def _branches(concepts: list[PreparedConcept], title_weight: float) -> list[_Branch]:
    """One GIN lookup per concept and column, rarest first, within ``ROW_BUDGET`` expected rows.

    A concept's alternatives are OR-ed into one lookup, so a posting earns the concept's IDF
    once whichever alternative it contains. A word found in most postings costs a heap visit
    per posting and adds almost no ranking signal (IDF near zero): past the budget, common
    concepts are left out (a concept too common in descriptions usually still counts
    through the far more selective title lookup).
    """
    branches: list[_Branch] = []
    for ci, concept in enumerate(concepts):
        idf = concept.alts[0].idf * concept.weight
        for column, weight in (("search_tsv", idf), ("title_tsv", idf * title_weight)):
            parts, rows, seen = [], 0.0, set()
            for ai, alt in enumerate(concept.alts):
                query = alt.body_q if column == "search_tsv" else alt.title_q
                freq = alt.freq if column == "search_tsv" else alt.title_freq
                if not query or query in seen:
                    continue
                if ai > 0 and freq * alt.total > ROW_BUDGET / 2:
                    continue   # a common translation or variant would flood this concept
                if concept.family and freq * alt.total > FAMILY_ROW_BUDGET / 2:
                    continue   # every name of a family's tools is one: a common one would block the rest
                seen.add(query)
                parts.append(query)
                rows += freq * alt.total
            if parts:
                branches.append(_Branch(column, " | ".join(f"( {q} )" for q in parts), ci, weight, rows))
    branches.sort(key=lambda b: (b.rows, b.column, b.concept))
    chosen: list[_Branch] = []
    spent = {False: 0.0, True: 0.0}
    budget = {False: ROW_BUDGET, True: FAMILY_ROW_BUDGET}
    for branch in branches:
        family = concepts[branch.concept].family
        if (chosen or family) and spent[family] + branch.rows > budget[family]:
            continue
        chosen.append(branch)
        spent[family] += branch.rows
    return chosen


def keyword_candidates(
    conn: psycopg.Connection, concepts: list[PreparedConcept], fsql: FilterSQL, limit: int,
    *, title_weight: float = TITLE_WEIGHT, filter_rows: int | None = None, use_lists: bool | None = None,
    info: dict[str, Any] | None = None,
) -> list[KeywordHit]:
    """Best ``limit`` postings satisfying the filters, by concept score (empty without concepts).

    One lookup per concept and column, each carrying its weight; a posting's score sums them,
    with BM25 length normalization on the description part. Scores are rounded for ordering so
    that equal scores summed in a different order still tie, and ties go to the lower ``job_id``.

    The lookups run on the store's posting lists (``jobpipe.search.lists``: a few rows read
    per query) whenever those are current, else (``use_lists=False`` too; None: ``USE_LISTS``)
    as one statement on the GIN indexes (``keyword_sql``); both give the same postings and scores. ``info`` receives
    ``keyword_path``: "lists" or "gin".

    ``filter_rows`` (postings matching the filters, if known) decides how the filters are
    checked: a selective filter's postings cut every lookup; a broad, combined or unknown one is
    checked on the postings found.
    """
    branches = _branches(concepts, title_weight)
    if not branches:
        return []
    avgdl = _avg_doc_length(conn)
    if USE_LISTS if use_lists is None else use_lists:
        listed = list_candidates(conn, branches, fsql, limit, avgdl=avgdl, k1=K1, b=B, branch_cap=BRANCH_CAP,
                                 filter_rows=filter_rows, total_rows=concepts[0].alts[0].total)
        if listed is not None:
            if info is not None:
                info["keyword_path"] = "lists"
            return [KeywordHit(h.job_id, h.score) for h in listed]
    if info is not None:
        info["keyword_path"] = "gin"
    query, params = _statement(branches, fsql, limit, avgdl, filter_rows)
    with conn.transaction():
        # A generic plan: the lookups' plan does not depend on which words they look up.
        conn.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        rows = conn.execute(query, params, prepare=True).fetchall()
    return [KeywordHit(r[0], float(r[1])) for r in rows]


def keyword_sql(
    conn: psycopg.Connection, concepts: list[PreparedConcept], fsql: FilterSQL, limit: int,
    *, title_weight: float = TITLE_WEIGHT, filter_rows: int | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """The GIN statement and its parameters, None without lookups.

    Apart from running it so that the speed bench can ``EXPLAIN (ANALYZE, BUFFERS)`` exactly
    the statement search runs when the posting lists cannot answer.
    """
    branches = _branches(concepts, title_weight)
    if not branches:
        return None
    return _statement(branches, fsql, limit, _avg_doc_length(conn), filter_rows)


def _statement(branches: list[_Branch], fsql: FilterSQL, limit: int, avgdl: float,
               filter_rows: int | None) -> tuple[str, dict[str, Any]]:
    """One GIN lookup per branch (``UNION ALL``), summed per posting.

    No tsvector is ever detoasted: the index says which postings contain a word, and
    ``search_length`` gives the length. One selective filter condition joins the word lookup
    inside the indexes; a broad, combined or unknown one is checked on the rows the word lookup
    returns, behind an ``OFFSET 0`` fence, so the planner never rereads the filter's index for
    every lookup.
    """
    # Words, weights and the mean length are parameters and the lookups are listed by column,
    # so the SQL text depends only on how many lookups each column has and on the filter
    # shape: a handful of statements, prepared once per connection and planned once. Custom
    # planning re-sorted pg_stats' ~10,000 lexeme frequencies for every lookup (~2 ms a query).
    branches = sorted(branches, key=lambda b: b.column)
    params: dict[str, Any] = dict(fsql.params)
    fenced = fsql.selective and (
        filter_rows is None or filter_rows > INDEX_FILTER_MAX_ROWS or fsql.conditions != 1)
    selects = []
    for bi, branch in enumerate(branches):
        params[f"q{bi}"] = branch.query
        params[f"w{bi}"] = float(branch.weight)
        body = branch.column == "search_tsv"
        weights = (f"%(w{bi})s::float8 AS bw, 0::float8 AS tw" if body else f"0::float8 AS bw, %(w{bi})s::float8 AS tw")
        # job_terms carries copies of every filtered column under the jobs names, so the
        # shared filter SQL (alias j) applies to it as is: no join to the wide jobs rows.
        if fenced:
            selects.append(
                f"(SELECT j.job_id, j.search_length AS len, {weights}"
                f" FROM (SELECT * FROM job_terms WHERE {branch.column} @@ %(q{bi})s::tsquery OFFSET 0) j"
                f" WHERE {fsql.where} LIMIT {BRANCH_CAP})"
            )
        else:
            selects.append(
                f"(SELECT j.job_id, j.search_length AS len, {weights}"
                f" FROM job_terms j WHERE j.{branch.column} @@ %(q{bi})s::tsquery AND {fsql.where} LIMIT {BRANCH_CAP})"
            )
    params["avgdl"] = avgdl
    norm = f"({K1 + 1:.3f} / (1 + {K1:.3f} * (1 - {B:.3f} + {B:.3f} * max(len) / %(avgdl)s::float8)))"
    # Rounded to 1e-9 in float8 (not numeric: ~15% of the query's time went to numeric rounding).
    query = f"""
        SELECT job_id, score FROM (
            SELECT job_id, {norm} * sum(bw) + sum(tw) AS score
            FROM ({' UNION ALL '.join(selects)}) hits
            GROUP BY job_id
        ) scored
        ORDER BY round(score * 1e9) DESC, job_id
        LIMIT {int(limit)}
    """
    return query, params


def browse_candidates(conn: psycopg.Connection, fsql: FilterSQL, limit: int) -> list[KeywordHit]:
    """No words to match (empty query, or only filter words): newest postings first."""
    rows = conn.execute(
        f"SELECT j.job_id FROM jobs j WHERE {fsql.where} ORDER BY j.posted_at DESC NULLS LAST, j.job_id DESC "
        f"LIMIT {int(limit)}",
        fsql.params,
    ).fetchall()
    return [KeywordHit(r[0], 0.0) for r in rows]

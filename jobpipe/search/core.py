"""Hybrid job search: vector leg + keyword leg, fused by reciprocal rank, filtered in SQL.

Each leg returns its best ``depth`` postings that satisfy the filters; the fused ranking is
collapsed to one result per duplicate group (``jobs.dedupe_key``). A leg that cannot run
(no embedder, no active model yet, a query with no words) is skipped and the response says
why in ``notes``, so callers (HTTP, MCP) never fail just because vectors are not there yet.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import psycopg

from jobpipe.search.families import counts_for
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.fusion import RRF_K, Fused, LegResult, reciprocal_rank_fusion, stated_list, with_list
from jobpipe.search.keyword import browse_candidates, keyword_candidates, prepare_concepts
from jobpipe.search.query_terms import query_concepts
from jobpipe.search.rerank import Reranker, document_text
from jobpipe.search.rerank import rerank as rerank_documents
from jobpipe.search.types import SearchFilters, SearchResponse, SearchResult
from jobpipe.search.understand import merge_filters, strip_spans, understand
from jobpipe.search.vector import VectorPlan, choose_plan, embed_query, vector_candidates
from jobpipe.store.jobs import Stated, load_jobs, stated_matches
from jobpipe.store.models import active_model

MODES = ("hybrid", "vector", "keyword")
#: Leg weights in the fusion (equal: see docs/search.md for the dev-set comparison). The lists of
#: what the query states weigh as much as each leg (skills: 0.5-2 measured alike), the seniority
#: list half as much: a level is a softer statement than a skill ("lead" and "staff" are often the
#: same job), and at 1 it lost a known item of the shared dev set that 0.5 kept (docs/search.md
#: "What the query states").
LEG_WEIGHTS = {"vector": 1.0, "keyword": 1.0, "skills": 1.0, "seniority": 0.5, "constraints": 1.0}

T = TypeVar("T")

#: What a search result shows of a job (the read model's names; no description).
_RESULT_FIELDS = ("job_id", "source", "external_id", "title", "company", "cities", "salary", "url", "posted_at",
                  "dedupe_key", "remote", "job_type")


#: A letter, a digit or a CJK character: something a leg can search for.
_WORD = re.compile(r"[^\W_]")


def _depth(top_k: int) -> int:
    """Rows each leg returns: enough for fusion to matter and duplicates to collapse."""
    return max(100, 2 * top_k + 20)


def _timed(timings: dict[str, float], stage: str, fn: Callable[[], T]) -> T:
    start = time.perf_counter()
    try:
        return fn()
    finally:
        timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - start) * 1000.0


def search(
    conn: psycopg.Connection,
    query: str,
    filters: SearchFilters = SearchFilters(),
    *,
    top_k: int = 10,
    embedder: Any = None,
    mode: str = "hybrid",
    collapse_duplicates: bool = True,
    debug: bool = False,
    rrf_k: float = RRF_K,
    keyword_conn: psycopg.Connection | None = None,
    auto_filters: bool = False,
    rerank: bool = False,
    reranker: Reranker | None = None,
) -> SearchResponse:
    """Rank open postings for ``query`` under ``filters``.

    ``mode``: "hybrid" (both legs, fused), "vector" or "keyword" (one leg, for comparison).
    ``embedder`` (``embed_queries``, ``model``, ``dims``) must be the active model's, else the
    vector leg is skipped with a note. Raises ValueError on an unknown mode or bad filter value.
    ``keyword_conn``: a second connection; when given, a hybrid search runs its keyword leg on
    it while the vector leg runs on ``conn``, so the answer takes the slower leg's time, not
    the sum (the service passes one when its pool has a spare).
    ``auto_filters``: apply what the query states (``response.understood``: city, job type,
    remote, minimum pay, freshness) as filters where ``filters`` does not set that field; the
    words that stated them are then not searched for (every candidate satisfies them).
    ``rerank``: let ``reranker`` re-order the top ``reranker.depth`` results; on any failure
    the fused order stays and ``response.rerank`` says why.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if top_k < 1:
        raise ValueError("top_k must be >= 1")
    started = time.perf_counter()
    timings: dict[str, float] = {}
    notes: list[str] = []
    info: dict[str, Any] = {}
    text = " ".join((query or "").split())
    understood = _timed(timings, "understand", lambda: understand(text))
    taken: set[str] = set()
    if auto_filters:
        filters, taken = merge_filters(filters, understood)
    # Words that stated an applied filter are not searched (every candidate satisfies them), nor
    # are what the query rules out ("不要外包" searched as words finds outsourcing jobs).
    unsearched = (understood.spans(taken) if taken else []) + understood.excluded_spans()
    if unsearched:
        text = strip_spans(text, unsearched)
        info["search_text"] = text
    if text and not _WORD.search(text):
        # Only punctuation or symbols ("(((", "!!!", "🚀"): no leg can read them, and a vector of
        # them ranks postings at random. Listed as a query of no words is: the newest first.
        text = ""
    fsql = build_filter_sql(filters)
    depth = _depth(top_k)
    legs: list[LegResult] = []
    model_name: str | None = None

    if mode == "hybrid" and keyword_conn is not None and text:
        model_name, legs = _both_legs(conn, keyword_conn, text, filters, fsql, embedder, depth, timings, notes,
                                      info, understood.seniority_levels)
    else:
        if mode in ("hybrid", "vector"):
            model_name, vector = _vector_leg(conn, text, fsql, embedder, depth, timings, notes, info)
            if vector is not None:
                legs.append(vector)
            elif mode == "vector":
                notes.append("vector search unavailable: answered by keyword search")
        if mode in ("hybrid", "keyword") or not legs:
            keyword = _keyword_leg(conn, text, filters, fsql, depth, timings, info, understood.seniority_levels)
            if keyword is not None:
                legs.append(keyword)
    effective = "hybrid" if len(legs) == 2 else legs[0].leg if legs else "browse"
    if not legs:
        hits = _timed(timings, "keyword", lambda: browse_candidates(conn, fsql, depth))
        legs.append(LegResult("browse", tuple(h.job_id for h in hits)))
        notes.append("no searchable words in the query: newest matching postings first")

    fused = _timed(timings, "fuse", lambda: reciprocal_rank_fusion(legs, k=rrf_k, weights=LEG_WEIGHTS))
    stated: dict[int, Stated] = {}
    constraints: list[str] = []
    if effective == "hybrid" and fused:
        fused, stated, constraints = _stated_lists(conn, fused, understood, filters, fsql, rrf_k, depth, timings,
                                                   info)
    want = max(top_k, reranker.depth) if rerank and reranker is not None else top_k
    results = _timed(timings, "fetch", lambda: _results(conn, fused, want, collapse_duplicates))
    for result in results:
        held = stated.get(result.job_id)
        if held is None:
            continue
        if held.skills:
            result.extra["query_skills_held"] = list(held.skills)
        if held.seniority is not None:
            result.extra["query_seniority_held"] = held.seniority
        met = [name for name, ok in zip(constraints, held.conditions, strict=True) if ok]
        if met:
            result.extra["query_constraints_met"] = met
    rerank_info = None
    if rerank:
        results, rerank_info = _reranked(conn, query, results, reranker, timings, notes)
    results = results[:top_k]
    timings["total"] = (time.perf_counter() - started) * 1000.0
    return SearchResponse(
        results=results,
        timings_ms={k: round(v, 3) for k, v in timings.items()} if debug else {},
        model=model_name,
        mode=effective,
        notes=notes,
        debug=(info | {"filters": fsql.resolved}) if debug else {},
        understood=understood,
        filters=filters,
        auto_filters=tuple(sorted(taken)),
        rerank=rerank_info,
    )


def _stated_lists(conn, fused, understood, filters, fsql, rrf_k, depth, timings,
                  info) -> tuple[list[Fused], dict[int, Stated], list[str]]:
    """``fused`` re-ordered by what the query states beyond its filters (``fusion.stated_list``).

    Three lists, each of the candidates holding it: the skills the query names (those no filter
    already requires: every candidate holds them), its seniority, and the constraints it states
    that no filter applies (city, job type, remote, pay, freshness: ``auto_filters`` off, the
    API's default). Each is weighted by ``LEG_WEIGHTS``; one lookup reads all three. Returns the
    order, what each candidate holds and the names of the constraints, in ``Stated.conditions``' order.
    """
    required = set(fsql.resolved.get("skills") or ())
    skills = [s.value for s in understood.skills if s.value not in required]
    levels = understood.seniority_levels
    merged, soft = merge_filters(filters, understood)
    names = sorted(soft)
    conditions = []
    for name in names:
        only = {name: getattr(merged, name)} | ({"currency": merged.currency} if name == "salary_min" else {})
        condition = build_filter_sql(SearchFilters.model_validate({"include_closed": True, **only}))
        conditions.append((condition.where, condition.params))
    if not (skills or levels or conditions):
        return fused, {}, []
    families = {skill: counts_for(skill) for skill in skills}
    # The first ``depth`` fused candidates only (as many as one leg returns): the lookup's cost
    # is a heap visit per candidate, and lifting the ones below changed nothing measured (eval
    # queries at top_k 50: identical with 100 or all ~200; docs/search.md).
    stated = _timed(timings, "fuse", lambda: stated_matches(conn, [f.job_id for f in fused[:depth]], families,
                                                            levels, conditions))

    def reorder() -> list[Fused]:
        out = fused
        for leg, counts in (("skills", {i: len(s.skills) for i, s in stated.items()}),
                            ("seniority", {i: int(s.seniority is not None) for i, s in stated.items()}),
                            ("constraints", {i: sum(s.conditions) for i, s in stated.items()})):
            if any(counts.values()):
                out = with_list(out, stated_list(leg, out, counts), k=rrf_k, weight=LEG_WEIGHTS[leg])
        return out

    info["query_stated"] = {"skills": skills, "seniority": levels, "constraints": names}
    return _timed(timings, "fuse", reorder), stated, names


def _reranked(conn, query, results, reranker, timings, notes) -> tuple[list[SearchResult], dict[str, Any]]:
    """The top results re-ordered by the reranker, or as they were with the reason."""
    if reranker is None:
        notes.append("reranking asked for, but no reranker is configured (JOBPIPE_RERANK_URL): fused order")
        return results, {"applied": False, "fallback": "no reranker configured"}
    head = results[:reranker.depth]
    if len(head) < 2:
        return results, {"applied": False, "model": reranker.model, "fallback": "fewer than 2 results"}
    rows = _timed(timings, "rerank", lambda: load_jobs(
        conn, [r.job_id for r in head], ("job_id", "title", "company", "cities", "description_text")))
    texts = [document_text(rows.get(r.job_id) or {"title": r.title}) for r in head]
    outcome = _timed(timings, "rerank", lambda: rerank_documents(reranker, query, texts))
    if not outcome.info.get("applied"):
        notes.append(f"reranker {reranker.model!r} not used ({outcome.info.get('fallback')}): fused order")
        return results, outcome.info
    for i, result in enumerate(head):
        result.extra["rerank_score"] = round(outcome.scores[i], 6)
    return [head[i] for i in outcome.order] + results[len(head):], outcome.info


def _both_legs(conn, keyword_conn, text, filters, fsql, embedder, depth, timings, notes,
               info, levels: Sequence[str] = ()) -> tuple[str | None, list[LegResult]]:
    """The two legs at once, each on its own connection; results merged as if run in turn.

    The keyword leg uses the vector plan's filter estimate (where to check the filter), so the
    plan is chosen first; it is a single EXPLAIN.
    """
    key_timings: dict[str, float] = {}
    key_info: dict[str, Any] = {}
    plan = None
    if fsql.selective:
        plan = _timed(timings, "vector", lambda: choose_plan(conn, fsql))
        key_info["vector_plan"] = {"filter_rows": plan.filter_rows}
    keyword_future = _LEG_POOL.submit(_keyword_leg, keyword_conn, text, filters, fsql, depth, key_timings,
                                      key_info, levels)
    try:
        model_name, vector = _vector_leg(conn, text, fsql, embedder, depth, timings, notes, info, plan=plan)
    finally:
        keyword = keyword_future.result()
    for stage, ms in key_timings.items():
        timings[stage] = timings.get(stage, 0.0) + ms
    info.update({k: v for k, v in key_info.items() if k != "vector_plan"})
    return model_name, [leg for leg in (vector, keyword) if leg is not None]


#: Threads that run keyword legs beside vector legs (they wait on the database, not the GIL).
_LEG_POOL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="jobpipe-search-leg")


def _vector_leg(conn, text, fsql, embedder, depth, timings, notes, info, *,
                plan: VectorPlan | None = None) -> tuple[str | None, LegResult | None]:
    """(the active model, what the vector leg found) -- None with a note when it cannot run."""
    if not text:
        return None, None
    if embedder is None:
        notes.append("no embedder configured: keyword search only")
        return None, None
    model = active_model(conn)
    if model is None:
        notes.append("no active embedding model yet (postings not embedded): keyword search only")
        return None, None
    embedder_model = getattr(embedder, "model", None)
    if embedder_model != model.model or int(getattr(embedder, "dims", model.dims)) != model.dims:
        notes.append(f"embedder {embedder_model!r} is not the active model {model.model!r}: keyword search only")
        return model.model, None
    vector, cached = _timed(timings, "embed", lambda: embed_query(embedder, text))
    info["embed_cached"] = cached
    if plan is None:
        plan = _timed(timings, "vector", lambda: choose_plan(conn, fsql))
    hits = _timed(timings, "vector", lambda: vector_candidates(conn, model, vector, fsql, depth, plan))
    info["vector_plan"] = {"method": plan.method, "filter_rows": plan.filter_rows, "fallback": plan.fallback}
    return model.model, LegResult.of("vector", [(h.job_id, 1.0 - h.distance) for h in hits])


def _keyword_leg(conn, text, filters, fsql, depth, timings, info, levels: Sequence[str] = ()) -> LegResult | None:
    """What the keyword leg found, or None when the query has no searchable words.

    ``levels``: the seniority levels the query prefers (``Understood.seniority_levels``).
    """
    concepts = query_concepts(text, filters, levels) if text else []
    if not concepts:
        return None
    # The leg's two parts are also timed apart (debug): preparing is cache lookups when the
    # words were seen before, the statement is the GIN lookups and their heap visits.
    parts: dict[str, float] = {}
    prepared = _timed(parts, "prepare", lambda: prepare_concepts(conn, concepts))
    info["keyword_concepts"] = [
        {"label": c.label, "alternatives": [{"body": a.body_q, "title": a.title_q, "weight": a.weight,
                                             "idf": round(a.idf, 3)} for a in c.alts]}
        for c in prepared
    ]
    if not prepared:
        timings["keyword"] = timings.get("keyword", 0.0) + parts["prepare"]
        return None
    # The vector leg counted the filter's matches (capped): where to check the filter.
    filter_rows = (info.get("vector_plan") or {}).get("filter_rows")
    try:
        hits = _timed(parts, "statement",
                      lambda: keyword_candidates(conn, prepared, fsql, depth, filter_rows=filter_rows, info=info))
    finally:
        timings["keyword"] = timings.get("keyword", 0.0) + sum(parts.values())
        info["keyword_ms"] = {k: round(v, 3) for k, v in parts.items()}
    return LegResult.of("keyword", [(h.job_id, h.score) for h in hits])


def _results(conn, fused: list[Fused], top_k: int, collapse: bool) -> list[SearchResult]:
    """The first ``top_k`` duplicate groups of the fused ranking, fetched in small chunks.

    Only as many candidates are read as it takes to fill ``top_k`` groups (plus the rest of
    the chunk, whose duplicates are attached to the shown results).
    """
    results: list[SearchResult] = []
    by_group: dict[str, SearchResult] = {}
    chunk = 2 * top_k + 10
    for start in range(0, len(fused), chunk):
        if len(results) >= top_k:
            break
        part = fused[start:start + chunk]
        rows = load_jobs(conn, [f.job_id for f in part], _RESULT_FIELDS)
        for item in part:
            row = rows.get(item.job_id)
            if row is None:
                continue   # deleted between the legs and the fetch
            group = row["dedupe_key"] if collapse and row["dedupe_key"] else None
            if group is not None and group in by_group:
                by_group[group].extra.setdefault("duplicate_job_ids", []).append(item.job_id)
                continue
            if len(results) >= top_k:
                continue
            result = _result(row, item)
            results.append(result)
            if group is not None:
                by_group[group] = result
    return results


def _result(row: dict[str, Any], item: Fused) -> SearchResult:
    extra: dict[str, Any] = {"remote": row["remote"], "job_type": row["job_type"]}
    if "vector" in item.leg_scores:
        extra["vector_similarity"] = round(item.leg_scores["vector"], 6)
    if "keyword" in item.leg_scores:
        extra["keyword_score"] = round(item.leg_scores["keyword"], 6)
    return SearchResult(
        job_id=row["job_id"], source=row["source"], external_id=row["external_id"], title=row["title"],
        company=row["company"], cities=row["cities"], salary=row["salary"], url=row["url"],
        posted_at=row["posted_at"], score=round(item.score, 8), vector_rank=item.ranks.get("vector"),
        keyword_rank=item.ranks.get("keyword"), fused_score=round(item.score, 8), extra=extra,
    )

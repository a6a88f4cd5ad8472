"""Where the keyword leg checks filters (inside the index lookup or on the matched rows) never changes
results, on the posting lists or on the GIN indexes."""

from __future__ import annotations

import pytest

from jobpipe.search import SearchFilters
from jobpipe.search import keyword as keyword_module
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.keyword import keyword_candidates, prepare_concepts
from jobpipe.search.query_terms import query_concepts
from jobpipe_tests.search.helpers import insert_job


@pytest.fixture
def catalogue(db):
    ids = {}
    for i in range(12):
        city = ["Beijing", "Shanghai", "Zhengzhou"][i % 3]
        ids[i] = insert_job(
            db, f"j{i}", "后端开发工程师" if i % 2 else "Data Engineer", cities=[city],
            job_type="intern" if i % 4 == 0 else "full_time", remote="remote" if i % 5 == 0 else None,
            skills=["Go"] if i % 2 else ["SQL"], posted_days_ago=i * 5, closed=i == 7,
            description="负责数据平台后端开发 data pipelines in Go and SQL",
            salary={"min": 1000 * i, "max": 20000 * i, "currency": "USD", "period": "year",
                    "annual_min": 1000 * i, "annual_max": 20000 * i} if i else None,
        )
    db.commit()
    return ids


FILTERS = [
    SearchFilters(city="Beijing"),
    SearchFilters(city="Atlantis"),          # unknown city: the EXISTS / ILIKE form
    SearchFilters(job_type="intern"),
    SearchFilters(remote=True),
    SearchFilters(salary_min=100_000),
    SearchFilters(skills=("Go",)),
    SearchFilters(posted_within_days=20),
    SearchFilters(city="Shanghai", job_type="full_time", include_closed=True),
]


@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:60])
def test_fenced_and_indexed_filters_give_the_same_hits(db, catalogue, filters):
    fsql = build_filter_sql(filters)
    prepared = prepare_concepts(db, query_concepts("数据 后端 engineer data", filters))
    assert prepared
    as_pairs = lambda hits: [(h.job_id, round(h.score, 6)) for h in hits]   # noqa: E731
    runs = {}
    for path in ("lists", "gin"):
        for name, rows in (("indexed", 1), ("fenced", 10 ** 6), ("unknown", None)):
            info: dict = {}
            hits = keyword_candidates(db, prepared, fsql, 50, filter_rows=rows, use_lists=path == "lists", info=info)
            # closed postings are not in the lists: such a search is the GIN statement's
            assert info["keyword_path"] == ("gin" if filters.include_closed else path)
            runs[(path, name)] = as_pairs(hits)
    assert len({tuple(r) for r in runs.values()}) == 1, runs
    fenced = [h for h in keyword_candidates(db, prepared, fsql, 50, filter_rows=10 ** 6)]
    # The filter really applied: compare with the rows SQL says satisfy it.
    allowed = {r[0] for r in db.execute(f"SELECT j.job_id FROM jobs j WHERE {fsql.where}", fsql.params)}
    assert {h.job_id for h in fenced} <= allowed


def test_broad_filter_is_not_combined_with_the_word_index(db, catalogue, monkeypatch):
    """The fenced form keeps the filter out of the GIN lookup: no BitmapAnd in its plan."""
    captured = {}
    original = db.execute

    def spy(query, params=None, **kw):
        captured["sql"], captured["params"] = query, params
        return original(query, params, **kw)

    fsql = build_filter_sql(SearchFilters(city="Beijing"))
    prepared = prepare_concepts(db, query_concepts("数据 engineer", SearchFilters(city="Beijing")))
    monkeypatch.setattr(db, "execute", spy)
    keyword_candidates(db, prepared, fsql, 50, filter_rows=keyword_module.INDEX_FILTER_MAX_ROWS + 1, use_lists=False)
    monkeypatch.setattr(db, "execute", original)
    assert "OFFSET 0" in captured["sql"]
    db.execute("SET enable_seqscan = off")   # a tiny table: make the planner consider the indexes
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN " + captured["sql"], captured["params"]))
    db.execute("RESET enable_seqscan")
    assert "BitmapAnd" not in plan and "jobs_cities" not in plan


def test_a_posting_stating_only_a_salary_floor_meets_a_filter_at_or_below_it(db):
    """'From $6,000/month' has no top; its floor says it pays at least that (both legs, both tables)."""
    from jobpipe.search import search
    from jobpipe_tests.search.helpers import ConceptEmbedder, activate_model, embed_jobs

    floor = insert_job(db, "floor", "Smart contract engineer", description="Solidity.",
                       salary={"min": 6000, "currency": "USD", "period": "month", "annual_min": 72000})
    low = insert_job(db, "low", "Smart contract engineer II", description="Solidity.",
                     salary={"min": 3000, "currency": "USD", "period": "month", "annual_min": 36000})
    ranged = insert_job(db, "ranged", "Smart contract lead", description="Solidity.",
                        salary={"min": 5000, "max": 7000, "currency": "USD", "period": "month",
                                "annual_min": 60000, "annual_max": 84000})
    activate_model(db)
    embed_jobs(db, ConceptEmbedder())
    for mode in ("keyword", "vector"):
        found = {r.job_id for r in search(db, "smart contract solidity", SearchFilters(salary_min=60_000),
                                          embedder=ConceptEmbedder(), mode=mode).results}
        assert found == {floor, ranged}, mode
    # The floor follows an update of the posting into the keyword leg's copy (the trigger).
    db.execute("UPDATE jobs SET salary_annual_min = 30000 WHERE job_id = %s", (floor,))
    db.commit()
    found = {r.job_id for r in search(db, "smart contract solidity", SearchFilters(salary_min=60_000),
                                      mode="keyword").results}
    assert found == {ranged} and low not in found

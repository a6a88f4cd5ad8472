"""The keyword leg on the posting lists answers exactly as the GIN statement does, or not at all."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from jobpipe.search import SearchFilters, search
from jobpipe.search.filters import build_filter_sql
from jobpipe.search.keyword import keyword_candidates, prepare_concepts
from jobpipe.search.lists import CHECK_SQL, Unsupported, _docs, _Lists, parse_tsquery
from jobpipe.search.query_terms import query_concepts
from jobpipe.store import term_lists
from jobpipe.store.term_lists import merge_term_lists, read_term_lists
from jobpipe_tests.search.helpers import insert_job

TITLES = [
    "Data Engineer", "Senior Data Engineer", "Data Platform Engineer", "Engineer, Data", "Big Data Engineer (Spark)",
    "数据工程师", "大数据开发工程师", "高级数据分析师", "后端开发工程师", "测试工程师", "工程师 数据", "Backend Engineer (Go)",
    "Product Manager", "产品经理（实习）", "Machine Learning Engineer", "机器学习算法工程师", "Flutter 开发工程师",
    "Rust Engineer", "UI 设计师", "Smart contract engineer",
]
DESCRIPTIONS = [
    "Build data pipelines with Spark, Kafka and SQL. 负责数据平台建设。",
    "We use Go, PostgreSQL and Kubernetes; machine learning a plus.",
    "负责后端服务开发，熟悉 Go 或 Java，了解分布式系统。",
    "Design dashboards; 数据分析 with Python and Excel. Data data data.",
    "Write Solidity smart contracts and audit DeFi protocols.",
    "",
]
CITIES = ["Beijing", "Shanghai", "Shenzhen", "Singapore", "Berlin"]
QUERIES = [
    "data engineer", "数据工程师", "senior data engineer spark", "后端开发工程师 Go", "机器学习", "machine learning engineer",
    "product manager intern", "产品经理", "Flutter", "smart contract solidity", "数据分析 Python", "engineer",
    "big data", "测试", "UI designer remote", "Rust 工程师", "backend engineer postgresql kubernetes", "data data",
]
FILTERS = [
    SearchFilters(),
    SearchFilters(city="Beijing"),
    SearchFilters(job_type="intern"),
    SearchFilters(remote=True),
    SearchFilters(salary_min=100_000, currency="USD"),
    SearchFilters(posted_within_days=30),
    SearchFilters(posted_from=date.today() - timedelta(days=40), posted_until=date.today() - timedelta(days=10)),
    SearchFilters(city="Shanghai", job_type="full_time"),
    SearchFilters(skills=("Go",)),
]


@pytest.fixture
def catalogue(db):
    for i in range(60):
        insert_job(
            db, f"j{i}", TITLES[i % len(TITLES)] + ("" if i < len(TITLES) else f" {i}"),
            description=DESCRIPTIONS[i % len(DESCRIPTIONS)] * (1 + i % 3),
            company=["Acme", "字节跳动", "Stripe", None][i % 4], cities=[CITIES[i % len(CITIES)]],
            job_type=["full_time", "intern", "full_time", "contract"][i % 4],
            remote="remote" if i % 6 == 0 else None, skills=["Go"] if i % 3 == 0 else ["SQL"],
            salary={"min": 1000 * i, "max": 4000 * i, "currency": "USD", "period": "year",
                    "annual_min": 1000 * i, "annual_max": 4000 * i},
            posted_days_ago=i, closed=i % 13 == 12,
        )
    db.commit()


def _pairs(hits):
    return [(h.job_id, round(h.score, 9)) for h in hits]


@pytest.mark.parametrize("long_lists", [False, True], ids=["filter-lists-read", "filter-lists-too-long"])
@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: repr(f)[:50])
def test_lists_and_gin_give_the_same_postings_and_scores(db, catalogue, filters, long_lists, monkeypatch):
    """Every filter type, each way it can be checked: by its value's list, or on rows when the
    list is too long to read (here: any list of two postings or more)."""
    if long_lists:
        monkeypatch.setattr(term_lists, "FILTER_LIST_MAX_BYTES", term_lists.FILTER.itemsize)
    fsql = build_filter_sql(filters)
    compared = 0
    for query in QUERIES:
        prepared = prepare_concepts(db, query_concepts(query, filters))
        for filter_rows in (None, 1, 10 ** 6):   # every way the filter can be checked
            info: dict = {}
            listed = keyword_candidates(db, prepared, fsql, 100, filter_rows=filter_rows, info=info)
            gin = keyword_candidates(db, prepared, fsql, 100, filter_rows=filter_rows, use_lists=False)
            assert _pairs(listed) == _pairs(gin), (query, filter_rows)
            if prepared:
                assert info["keyword_path"] == "lists"
                compared += bool(gin)
    assert compared >= len(QUERIES)


def test_a_broad_filter_checked_in_batches_still_fills_the_page(db, catalogue):
    """Few results asked for, a filter most top postings fail: later batches are checked too."""
    filters = SearchFilters(city="Berlin")
    fsql = build_filter_sql(filters)
    prepared = prepare_concepts(db, query_concepts("engineer data", filters))
    for limit in (1, 3, 7):
        listed = keyword_candidates(db, prepared, fsql, limit, filter_rows=10 ** 6)
        gin = keyword_candidates(db, prepared, fsql, limit, filter_rows=10 ** 6, use_lists=False)
        assert _pairs(listed) == _pairs(gin) and len(listed) == limit


def test_title_phrases_match_only_words_in_sequence(db, catalogue):
    """'data engineer' is a title phrase: not 'Data Platform Engineer' nor 'Engineer, Data'."""
    phrase = db.execute("SELECT phraseto_tsquery('simple', jobpipe_title_terms('data engineer'))::text").fetchone()[0]
    chinese = db.execute("SELECT phraseto_tsquery('simple', jobpipe_title_terms('数据工程师'))::text").fetchone()[0]
    for query in (phrase, chinese, f"( {phrase} ) | ( {chinese} )"):
        expected = {r[0] for r in db.execute(
            "SELECT job_id FROM job_terms WHERE title_tsv @@ %s::tsquery AND closed_at IS NULL", (query,))}
        tree = parse_tsquery(query)
        lexemes = sorted({t for t in query.replace("(", " ").replace(")", " ").split("'")[1::2]})
        fetched = read_term_lists(db, [], lexemes)
        assert fetched is not None
        found = set(_docs(tree, _Lists(fetched), title=True).tolist())
        assert found == expected and expected
    db.commit()


def test_until_a_change_is_merged_the_gin_indexes_answer(db, catalogue):
    fsql = build_filter_sql(SearchFilters())
    prepared = prepare_concepts(db, query_concepts("data engineer", SearchFilters()))
    db.execute("UPDATE jobs SET title = 'Data Engineer reworded', content_hash = 'changed' "
               "WHERE external_id = 'j2'")
    db.commit()
    from jobpipe.store.terms import sync_job_terms
    sync_job_terms(db, workers=0)
    info: dict = {}
    stale_free = keyword_candidates(db, prepared, fsql, 100, info=info)
    assert info["keyword_path"] == "gin"
    assert _pairs(stale_free) == _pairs(keyword_candidates(db, prepared, fsql, 100, use_lists=False))
    merge_term_lists(db)
    info = {}
    assert _pairs(keyword_candidates(db, prepared, fsql, 100, info=info)) == _pairs(stale_free)
    assert info["keyword_path"] == "lists"


def test_the_response_says_which_path_answered(db, catalogue):
    response = search(db, "data engineer", mode="keyword", debug=True)
    assert response.debug["keyword_path"] == "lists" and response.results
    closed_too = search(db, "data engineer", SearchFilters(include_closed=True), mode="keyword", debug=True)
    assert closed_too.debug["keyword_path"] == "gin"
    assert len(closed_too.results) >= len(response.results)


@pytest.mark.parametrize("text, tree", [
    ("'a'", ("lex", "a")),
    ("'a' & 'b' | 'c'", ("or", ("and", ("lex", "a"), ("lex", "b")), ("lex", "c"))),
    ("'a' | 'b' & 'c'", ("or", ("lex", "a"), ("and", ("lex", "b"), ("lex", "c")))),
    ("'a' <-> 'b' & 'c'", ("and", ("phrase", ("lex", "a"), ("lex", "b"), 1), ("lex", "c"))),
    ("'a' <-> 'b' <2> 'c'", ("phrase", ("phrase", ("lex", "a"), ("lex", "b"), 1), ("lex", "c"), 2)),
    ("( 'a' | 'b' ) <-> 'c'", ("phrase", ("or", ("lex", "a"), ("lex", "b")), ("lex", "c"), 1)),
    ("'o''reilly' & 'c\\\\d'", ("and", ("lex", "o'reilly"), ("lex", "c\\d"))),
])
def test_tsquery_text_is_read_with_postgres_precedence(text, tree):
    assert parse_tsquery(text) == tree


@pytest.mark.parametrize("text", ["!'a'", "'a':*", "'a':AB & 'b'", "'a' &", "( 'a'", "'a' 'b'"])
def test_what_the_lists_cannot_evaluate_is_refused(text):
    with pytest.raises(Unsupported):
        parse_tsquery(text)


def test_tsquery_reading_agrees_with_postgres_on_what_it_prints(db):
    """Round trip: the tree printed back as a tsquery means the same to PostgreSQL."""
    def show(node):
        if node[0] == "lex":
            return "'" + node[1].replace("'", "''") + "'"
        op = {"and": "&", "or": "|"}.get(node[0]) or ("<->" if node[3] == 1 else f"<{node[3]}>")
        return f"( {show(node[1])} {op} {show(node[2])} )"

    for source in ("data & engineer & x | y <-> z", "(a | b) <-> c & d", "a <3> b | c & d <-> e"):
        text = db.execute("SELECT to_tsquery('simple', %s)::text", (source,)).fetchone()[0]
        again = db.execute("SELECT %s::tsquery = %s::tsquery", (show(parse_tsquery(text)), text)).fetchone()[0]
        assert again, (source, text)
    db.commit()


def test_the_service_login_may_read_the_lists(db, catalogue, service_database):
    """The query service's own read-only login reads every table the lists path touches."""
    from jobpipe.db import connect

    db.execute("UPDATE jobs SET closed_at = now() WHERE external_id = 'j3'")   # a void posting too
    db.commit()
    merge_term_lists(db)
    with connect(service_database) as reader:
        response = search(reader, "data engineer", mode="keyword", debug=True)
    assert response.debug["keyword_path"] == "lists" and response.results


@pytest.mark.parametrize("filters", [SearchFilters(posted_within_days=30),
                                     SearchFilters(salary_min=100_000, currency="EUR"),
                                     SearchFilters(salary_min=50_000, posted_within_days=30)],
                         ids=["posted", "salary", "both"])
def test_a_date_or_salary_is_checked_from_the_primary_key_alone(db, catalogue, filters):
    """sql/0036: the range filters' columns ride in job_terms' primary key, so checking them on
    the candidates never reads the wide rows."""
    fsql = build_filter_sql(filters)
    assert fsql.residual not in (None, "TRUE")
    db.execute("SET enable_seqscan = off")   # a 60-row table would otherwise be read whole
    db.execute("SET enable_bitmapscan = off")
    ids = [r[0] for r in db.execute("SELECT job_id FROM job_terms ORDER BY job_id DESC LIMIT 20")]
    plan = "\n".join(r[0] for r in db.execute("EXPLAIN " + CHECK_SQL.format(where=fsql.residual),
                                              fsql.params | {"list_ids": ids}))
    assert "Index Only Scan using job_terms_pkey" in plan

"""Keyword terms are computed per content hash: exactly for new or re-worded postings."""

from dataclasses import replace

import pytest

from jobpipe.store import close_missing, pending_terms, sync_job_terms, upsert_jobs
from jobpipe.store.terms import search_text, tokenize_rows
from jobpipe.text.pinyin import posting_terms
from jobpipe.text.tokenize import search_tokens, tokenize
from jobpipe_tests.store.helpers import gin_pending_pages, make_posting, make_postings


def _terms(db):
    rows = db.execute("SELECT j.external_id, t.content_hash, t.closed_at IS NULL, t.search_length, t.xmin::text "
                      "FROM job_terms t JOIN jobs j USING (job_id)").fetchall()
    db.commit()
    return {r[0]: r[1:] for r in rows}


def _matches(db, column, query):
    rows = db.execute(f"SELECT j.external_id FROM job_terms t JOIN jobs j USING (job_id) "
                      f"WHERE t.{column} @@ to_tsquery('simple', %s)", (query,)).fetchall()
    db.commit()
    return {r[0] for r in rows}


def test_terms_hold_the_jieba_tokens_of_the_search_text(db):
    posting = make_posting(1, title="高级 Python 工程师", company="示例科技有限公司", cities=["Beijing"])
    upsert_jobs(db, [posting])
    assert pending_terms(db) == 1
    counts = sync_job_terms(db)
    assert counts.computed == 1 and pending_terms(db) == 0

    text = search_text(posting.title, posting.company, posting.cities, posting.skills, posting.description_text)
    tokens = tokenize(text)
    # the text's tokens, plus the marked pinyin of the title's and company's Chinese words
    pinyin = posting_terms(tokenize(posting.title)) + posting_terms(tokenize(posting.company))
    assert "py0gongchengshi" in pinyin
    stored = db.execute("SELECT t.content_hash, t.search_length, t.closed_at IS NULL, "
                        "tsvector_to_array(t.search_tsv) = tsvector_to_array(to_tsvector('simple', %s)) "
                        "FROM job_terms t", (" ".join([search_tokens(text), *pinyin]),)).fetchone()
    assert stored == (posting.content_hash or stored[0], len(tokens), True, True)
    assert _matches(db, "search_tsv", "工程师 & beijing & python") == {"board-1"}
    # Title terms: Chinese as character bigrams, so a query word matches inside a longer title.
    assert _matches(db, "title_tsv", "工程 <-> 程师") == {"board-1"}
    assert _matches(db, "title_tsv", "beijing") == set()


def test_only_postings_whose_search_text_changed_are_tokenized_again(db):
    upsert_jobs(db, make_postings(10))
    assert sync_job_terms(db).computed == 10
    before = _terms(db)
    assert sync_job_terms(db).computed == 0   # nothing changed: nothing tokenized, nothing rewritten
    assert _terms(db) == before

    postings = make_postings(10)
    postings[2] = replace(postings[2], url="https://elsewhere.example.com/2", salary=replace(postings[2].salary, max=99999))
    postings[4] = replace(postings[4], description_text="Now about Rust and WebAssembly.")
    postings[6] = replace(postings[6], title="Principal Engineer 6")
    counts = upsert_jobs(db, postings)
    assert counts.updated == 3

    assert pending_terms(db) == 2
    assert sync_job_terms(db).computed == 2
    after = _terms(db)
    assert {k for k in before if after[k] != before[k]} == {"board-4", "board-6"}   # not board-2 (url/salary)
    assert _matches(db, "search_tsv", "webassembly") == {"board-4"}
    assert _matches(db, "title_tsv", "principal") == {"board-6"}


def test_a_sync_that_wrote_terms_leaves_the_gin_pending_lists_merged(db):
    # GIN's fastupdate parks new entries in a pending list every keyword search scans until a
    # vacuum merges it; a night's re-tokenized postings must not leave them there.
    upsert_jobs(db, make_postings(40))
    assert sync_job_terms(db).computed == 40
    assert gin_pending_pages(db, "job_terms") == {"job_terms_cities": 0, "job_terms_search_tsv": 0,
                                                 "job_terms_title_tsv": 0}
    postings = make_postings(40)
    postings[3] = replace(postings[3], description_text="Now about Rust and WebAssembly.")
    upsert_jobs(db, postings)
    assert sync_job_terms(db).computed == 1
    assert set(gin_pending_pages(db, "job_terms").values()) == {0}
    assert _matches(db, "search_tsv", "webassembly") == {"board-3"}


def test_source_scoped_sync_leaves_other_sources_pending(db):
    upsert_jobs(db, make_postings(3, source="a") + make_postings(4, source="b"))
    assert sync_job_terms(db, source="a").computed == 3
    assert pending_terms(db, "b") == 4 and pending_terms(db, "a") == 0
    assert sync_job_terms(db).computed == 4


def test_filter_copies_follow_closing_reopening_and_edits(db):
    upsert_jobs(db, make_postings(10))
    sync_job_terms(db)
    close_missing(db, "board", [f"board-{i}" for i in range(9)], complete=True)
    assert _terms(db)["board-9"][1] is False
    assert all(v[1] for k, v in _terms(db).items() if k != "board-9")
    upsert_jobs(db, make_postings(10))   # board-9 is listed again
    assert _terms(db)["board-9"][1] is True
    # Closed by hand (an operator's UPDATE): the trigger keeps the copy in step too.
    db.execute("UPDATE jobs SET closed_at = now() WHERE external_id = 'board-3'")
    db.commit()
    assert _terms(db)["board-3"][1] is False
    # A salary or city edit (no new terms needed) reaches the copies the filters read.
    postings = make_postings(10)
    postings[5] = replace(postings[5], salary_annual_max=999_999.0, cities=["Chengdu"], job_type="intern")
    upsert_jobs(db, postings)
    copy = db.execute("SELECT t.salary_annual_max, t.cities, t.job_type FROM job_terms t JOIN jobs j USING (job_id) "
                      "WHERE j.external_id = 'board-5'").fetchone()
    assert (float(copy[0]), copy[1], copy[2]) == (999_999.0, ["Chengdu"], "intern")
    assert sync_job_terms(db).computed == 1   # the city is search text: re-tokenized; the salary alone would not be


def test_a_posting_updated_while_its_first_terms_are_written_keeps_equal_filter_copies(db, database):
    """The race the jobs trigger cannot see: the posting changes (uncommitted) before its first
    terms row exists, so the trigger has nothing to update; the terms write must wait and copy
    the committed values."""
    import threading
    import time

    from jobpipe.db import connect
    from jobpipe.store.terms import FILTER_COLUMNS

    upsert_jobs(db, make_postings(4))
    db.commit()
    differs = (f"SELECT count(*) FROM jobs j JOIN job_terms t USING (job_id) WHERE ({', '.join('j.' + c for c in FILTER_COLUMNS)})"
               f" IS DISTINCT FROM ({', '.join('t.' + c for c in FILTER_COLUMNS)})")
    with connect(database) as writer:
        writer.execute("UPDATE jobs SET remote = 'remote', posted_at = now() WHERE external_id = 'board-1'")
        done = threading.Event()
        thread = threading.Thread(target=lambda: (sync_job_terms(db, workers=0), done.set()))
        thread.start()
        time.sleep(0.5)
        waited = not done.is_set()
        writer.commit()
        thread.join(timeout=30)
    assert waited and done.is_set()
    assert db.execute(differs).fetchone()[0] == 0
    assert db.execute("SELECT t.remote FROM job_terms t JOIN jobs j USING (job_id) WHERE j.external_id = 'board-1'"
                      ).fetchone()[0] == "remote"


def test_parallel_workers_compute_the_same_terms_as_inline(db):
    postings = make_postings(60, source="p")
    upsert_jobs(db, postings)
    counts = sync_job_terms(db, workers=2, page_rows=7, bulk_load_rows=10_000)
    assert counts.computed == 60
    expected = {p.external_id: len(tokenize(search_text(p.title, p.company, p.cities, p.skills, p.description_text)))
                for p in postings}
    assert {k: v[2] for k, v in _terms(db).items()} == expected


def test_parallel_path_is_taken_for_a_large_backlog(db, monkeypatch):
    import jobpipe.store.terms as terms

    monkeypatch.setattr(terms, "PARALLEL_MIN_ROWS", 20)
    upsert_jobs(db, make_postings(45))
    counts = sync_job_terms(db, workers=2, page_rows=10)
    assert counts.workers == 2 and counts.computed == 45 and pending_terms(db) == 0


def test_bulk_load_into_empty_terms_rebuilds_their_gin_indexes(db):
    def gins():
        rows = db.execute("SELECT c.relname, c.oid, pg_get_indexdef(c.oid) FROM pg_index i "
                          "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
                          "WHERE i.indrelid = 'job_terms'::regclass AND a.amname = 'gin'").fetchall()
        db.commit()
        return {name: (oid, definition) for name, oid, definition in rows}

    before = gins()
    assert set(before) == {"job_terms_search_tsv", "job_terms_title_tsv", "job_terms_cities"}
    upsert_jobs(db, make_postings(30))
    counts = sync_job_terms(db, workers=0, page_rows=8, bulk_load_rows=20)
    assert counts.deferred_indexes and counts.computed == 30
    after = gins()
    assert {n: d for n, (_, d) in after.items()} == {n: d for n, (_, d) in before.items()}
    assert all(after[n][0] != before[n][0] for n in after)   # built afresh
    db.execute("SET LOCAL enable_seqscan = off")
    assert len(_matches(db, "search_tsv", "posting")) == 30


def test_a_crash_mid_sync_keeps_written_pages_and_the_next_call_finishes(db, monkeypatch):
    import jobpipe.store.terms as terms

    upsert_jobs(db, make_postings(25))
    calls = {"n": 0}
    real = terms.tokenize_rows

    def failing(rows):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("tokenizer died")
        return real(rows)

    monkeypatch.setattr(terms, "tokenize_rows", failing)
    with pytest.raises(RuntimeError):
        sync_job_terms(db, workers=0, page_rows=5)
    db.rollback()
    assert pending_terms(db) == 15   # two pages of five were committed
    monkeypatch.setattr(terms, "tokenize_rows", real)
    assert sync_job_terms(db, workers=0).computed == 15 and pending_terms(db) == 0


def test_tokenize_rows_is_pure_and_counts_tokens():
    rows = [(7, "h", "Go 后端工程师", "Acme", ["Shenzhen"], ["Go"], "负责 Kubernetes 平台, C++ and node.js")]
    [(job_id, chash, length, plain, special, title)] = tokenize_rows(rows)
    assert (job_id, chash) == (7, "h")
    assert {"go", "kubernetes", "shenzhen", "acme", "负责"} <= set(plain.split())
    assert set(special.split()) == {"c++", "node.js"}
    # the title's Chinese words also as marked pinyin, in both term sets, but not in the length
    # (BM25's lengths are the text's); the description's words get none
    pinyin = {t for t in plain.split() if t.startswith("py0")}
    assert pinyin == {"py0gongcheng", "py0gongchengshi"}   # jieba: 后 端 工程 工程师
    assert title.startswith("Go 后端工程师 ") and set(title.split()[2:]) == pinyin
    assert length == len(plain.split()) - len(pinyin) + len(special.split())


def test_a_company_s_chinese_name_is_searchable_by_its_pinyin_in_the_description_terms_only():
    [(_, _, _, plain, _, title)] = tokenize_rows([(1, "h", "Data Analyst", "小红书", [], [], "About us")])
    assert "py0xiaohongshu" in plain.split() and title == "Data Analyst"


@pytest.mark.parametrize("text", [
    "C++ / C# / node.js / .NET / full-stack / 3.5 years / 2024届 / v1.2.3 / a-b-c / e-mail@x.org",
    "资深后端工程师（Go/Rust）负责高并发系统，熟悉 Kafka、k8s 与 gRPC；base 深圳 15-25K·14薪",
    "x" * 3000 + " ok " + "长" * 100 + " 0007 ＡＢＣ ½ ß naïve café",
])
def test_plain_tokens_as_lexemes_give_exactly_the_parsers_lexemes(db, text):
    [(_, _, _, plain, special, _)] = tokenize_rows([(1, "h", "", None, [], [], text)])
    tokens = search_tokens(text)
    same = db.execute(
        "SELECT tsvector_to_array(to_tsvector('simple', %s)) = "
        "tsvector_to_array(array_to_tsvector(string_to_array(%s, ' ')) || to_tsvector('simple', %s))",
        (tokens, plain, special)).fetchone()[0]
    db.commit()
    assert same

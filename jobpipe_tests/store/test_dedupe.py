from jobpipe.store import duplicate_groups, upsert_jobs
from jobpipe.store.dedupe import dedupe_key, normalize_company
from jobpipe_tests.store.helpers import make_posting


def test_company_suffixes_case_width_and_punctuation_fold_away():
    assert normalize_company("Acme Inc.") == normalize_company("ACME") == normalize_company("Acme, Ltd") == "acme"
    assert normalize_company("北京示例科技有限公司") == normalize_company("北京示例科技") == "北京示例科技"
    assert normalize_company("示例科技（中国）股份有限公司") == "示例科技"
    assert normalize_company("Ｇｏｏｇｌｅ LLC") == "google"


def test_board_copy_and_company_site_copy_share_a_key():
    board = make_posting(1, source="board", company="Acme Inc.", title="Senior Data Engineer (Remote)",
                         cities=["Berlin", "Remote"])
    site = make_posting(1, source="site", company="ACME", title="senior data engineer - remote",
                        cities=["Berlin"], url="https://acme.example.com/careers/1")
    other_city = make_posting(1, source="site", company="ACME", title="Senior Data Engineer", cities=["Paris"])
    assert dedupe_key(board) == dedupe_key(site)
    assert dedupe_key(board) != dedupe_key(other_city)


def test_without_company_only_identical_descriptions_group():
    common = {"company": None, "title": "Go 工程师", "cities": ["Shanghai"]}
    a = make_posting(1, description_text="Build payment APIs.", **common)
    repost = make_posting(2, description_text="Build  payment APIs!", **common)
    unrelated = make_posting(3, description_text="Maintain a game server.", **common)
    assert dedupe_key(a) == dedupe_key(repost)
    assert dedupe_key(a) != dedupe_key(unrelated)


def test_duplicate_groups_counts_open_groups(db):
    postings = [
        make_posting(1, source="board", company="Acme Inc.", title="Data Engineer", cities=["Berlin"]),
        make_posting(1, source="site", company="Acme", title="Data Engineer", cities=["Berlin"]),
        make_posting(2, source="board", company="Acme Inc.", title="Data Engineer", cities=["Berlin"]),
        make_posting(3, source="board", company="Beta GmbH", title="Designer", cities=["Paris"]),
    ]
    upsert_jobs(db, postings)
    assert duplicate_groups(db) == 1
    assert db.execute("SELECT postings FROM job_duplicate_groups").fetchone()[0] == 3

from jobpipe.store import duplicate_groups, upsert_jobs
from jobpipe.store.dedupe import content_signature, dedupe_key, normalize_company, requisition_id
from jobpipe_tests.store.helpers import make_posting


def test_company_suffixes_case_width_and_punctuation_fold_away():
    assert normalize_company("Acme Inc.") == normalize_company("ACME") == normalize_company("Acme, Ltd") == "acme"
    assert normalize_company("北京示例科技有限公司") == normalize_company("北京示例科技") == "北京示例科技"
    assert normalize_company("示例科技（中国）股份有限公司") == "示例科技"
    assert normalize_company("Ｇｏｏｇｌｅ LLC") == "google"


def test_board_copy_and_company_site_copy_share_a_key():
    board = make_posting(1, source="board", company="Acme Inc.", title="Senior Data Engineer (Remote)",
                         cities=["Berlin"])
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


_JD = ("岗位职责：\n1、负责直播业务的后端服务设计与开发；\n2、参与高并发系统的架构优化与性能调优；\n"
       "任职要求：\n1、本科及以上学历，3年以上Go或Java开发经验；\n2、熟悉MySQL、Redis、Kafka等常用中间件；\n"
       "3、有大型分布式系统经验者优先。")


def test_different_openings_with_one_title_do_not_merge():
    base = {"company": "bilibili", "title": "高级后端开发工程师", "cities": ["Shanghai"], "description_text": _JD}
    one = make_posting(1, **base)
    assert dedupe_key(one) != dedupe_key(make_posting(2, **{**base, "cities": ["Shanghai", "Beijing"]}))
    assert dedupe_key(one) != dedupe_key(make_posting(3, **{**base, "seniority": "senior"}))
    other_jd = ("岗位职责：\n1、负责游戏客户端的渲染管线与工具链开发；\n2、优化移动端性能与包体；\n"
                "任职要求：\n1、熟悉Unity3D与C#，有上线项目经验；\n2、了解图形学基础。")
    assert dedupe_key(one) != dedupe_key(make_posting(4, **{**base, "description_text": other_jd}))
    req_a = make_posting(5, **{**base, "description_text": "Job ID: R-10042\n" + _JD})
    req_b = make_posting(6, **{**base, "description_text": "Job ID: R-10043\n" + _JD})
    assert requisition_id(req_a.description_text) == "r-10042"
    assert dedupe_key(req_a) != dedupe_key(req_b)


def test_reposts_and_copies_still_group():
    base = {"company": "bilibili", "title": "高级后端开发工程师", "cities": ["Beijing", "Shanghai"], "description_text": _JD}
    one = make_posting(1, **base)
    # the same text with other line breaks, spacing, punctuation and width, cities in another order
    reformatted = _JD.replace("\n", " ").replace("；", ";").replace("Go", "Ｇｏ")
    assert dedupe_key(one) == dedupe_key(make_posting(2, **{**base, "description_text": reformatted,
                                                             "cities": ["Shanghai", "Beijing"]}))
    # a repost of one requisition with its text edited keeps the id
    a = make_posting(3, **{**base, "description_text": "Req #A1234\n" + _JD})
    b = make_posting(4, **{**base, "description_text": "Req #A1234\n" + _JD.replace("3年以上", "5年以上") + "\n急招"})
    assert dedupe_key(a) == dedupe_key(b)


def test_content_signature_is_the_minimum_over_the_pieces():
    assert content_signature("") == "" and content_signature(None) == ""
    assert content_signature(_JD) == content_signature(_JD.upper().replace("\n", "  "))
    assert len(content_signature(_JD)) == 8


def test_duplicate_groups_counts_open_groups(db):
    same = {"company": "Acme Inc.", "title": "Data Engineer", "cities": ["Berlin"], "description_text": _JD}
    postings = [
        make_posting(1, source="board", **same),
        make_posting(1, source="site", **{**same, "company": "Acme"}),
        make_posting(2, source="board", **same),                                     # a repost
        make_posting(4, source="board", **{**same, "description_text": "Maintain the data platform of Acme."}),
        make_posting(3, source="board", company="Beta GmbH", title="Designer", cities=["Paris"]),
    ]
    upsert_jobs(db, postings)
    assert duplicate_groups(db) == 1
    assert db.execute("SELECT postings FROM job_duplicate_groups").fetchone()[0] == 3

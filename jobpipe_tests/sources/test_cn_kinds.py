"""The Chinese career kinds (Tencent, bilibili, 智联, 拉勾) over a real local HTTP server, with
invented payloads in the shape of the real ones, and their field quirks through the normalizer."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from jobpipe.normalize import normalize_posting
from jobpipe.sources import PoliteClient, SourcesFileError, extract, fetch_source
from jobpipe_tests.conftest import shared_data_path
from jobpipe_tests.sources.helpers import make_config
from jobpipe_tests.sources.server import FixtureServer, json_reply

FETCHED = datetime(2026, 10, 1, 2, 0, tzinfo=timezone.utc)   # 10:00 in Beijing


def normalized(kind: str, payload: dict, external_id: str = "x"):  # noqa: ANN201
    return normalize_posting(extract(kind, payload), source=kind, external_id=external_id, fetched_at=FETCHED)


# ------------------------------------------------------------------ Tencent
def tencent_post(i: int, **more: object) -> dict:
    return {"Id": 0, "PostId": f"90{i:05d}", "RecruitPostId": 1000 + i, "RecruitPostName": f"TEG0{i}-后台开发工程师{i}（深圳/北京）",
            "CountryName": "中国", "LocationName": "深圳", "BGName": "TEG", "ProductName": "", "CategoryName": "技术",
            "Responsibility": f"负责第{i}个系统的设计与开发；", "LastUpdateTime": "2026年09月28日",
            "PostURL": f"http://careers.tencent.com/jobdesc.html?postId=90{i:05d}", "SourceID": 1, "IsCollect": False,
            "IsValid": True, **more}


def serve_tencent(server: FixtureServer, posts: list[dict], size: int = 2, count: int | None = None) -> None:
    total = len(posts) if count is None else count
    for page in range(1, len(posts) // size + 2):
        chunk = posts[(page - 1) * size: page * size]
        query = (f"countryId=&cityId=&bgIds=&productId=&categoryId=&parentCategoryId=&attrId=&keyword=&pageIndex={page}"
                 f"&pageSize={size}&language=zh-cn&area=cn")
        server.route(f"/tencentcareer/api/post/Query?{query}", json_reply({"Code": 200, "Data": {"Count": total, "Posts": chunk}}))
    for post in posts:
        server.route(f"/tencentcareer/api/post/ByPostId?postId={post['PostId']}&language=zh-cn",
                     json_reply({"Code": 200, "Data": {**post, "Requirement": "本科及以上学历，3年以上Go开发经验"}}))


def test_tencent_pages_by_number_and_fetches_requirements(server: FixtureServer, client: PoliteClient) -> None:
    posts = [tencent_post(i) for i in range(5)] + [tencent_post(9, IsValid=False)]
    serve_tencent(server, posts, count=6)
    config = make_config("tx", "tencent", base_url=server.base, page_size=2)
    result = fetch_source(config, client)
    assert result.complete and result.error is None, result.error
    assert [p.external_id for p in result.postings] == [f"90{i:05d}" for i in range(5)]   # IsValid false: not listed
    assert result.listing.doubts == [] and result.listing.total == 6
    fields = extract("tencent", result.postings[0].payload)
    assert fields.title == "后台开发工程师0（深圳/北京）" and fields.extra["post_code"] == "TEG00"
    assert fields.company == "腾讯" and fields.location == "深圳, 中国" and fields.department == "TEG"
    assert "工作要求\n本科及以上学历" in fields.description
    posting = normalized("tencent", result.postings[0].payload)
    # the listing's city first, then the other cities the title offers the post in
    assert posting.cities == ["Shenzhen", "Beijing"] and posting.country == "CN"
    assert posting.posted_at == datetime(2026, 9, 27, 16, 0, tzinfo=timezone.utc)      # the Beijing day
    assert (posting.experience_min, posting.degree) == (3, "bachelor")


def test_tencent_error_envelope_fails_the_page(server: FixtureServer, client: PoliteClient) -> None:
    server.route("/tencentcareer/api/post/Query", json_reply({"Code": 500, "Data": None}))
    result = fetch_source(make_config("tx", "tencent", base_url=server.base, details=False), client)
    assert not result.complete and "the API answered Code 500, not 200" in result.error


@pytest.mark.parametrize("title, expected", [
    ("31504-服务管理支持岗（CSIG全资子公司）", ("服务管理支持岗（CSIG全资子公司）", "31504")),
    ("WXG02-113 微信大数据平台开发工程师（深圳/广州）（广州）", ("微信大数据平台开发工程师（深圳/广州）（广州）", "WXG02-113")),
    ("CSIG07-威胁情报高级后台开发工程师", ("威胁情报高级后台开发工程师", "CSIG07")),
    ("Uncapped Games - UI Engineer (All Levels)", ("Uncapped Games - UI Engineer (All Levels)", None)),
    ("Big Data SRE (Student / Recent Graduate)", ("Big Data SRE (Student / Recent Graduate)", None)),
])
def test_tencent_requisition_codes(title: str, expected: tuple) -> None:
    from jobpipe.sources.kinds.tencent import split_post_code

    assert split_post_code(title) == expected


def test_tencent_real_post_extracts() -> None:
    path = shared_data_path("api_samples", "zh_tencent", "careers_api_post_Query_one_post_2023__tencent_hr_spider.json")
    post = json.loads(path.read_text(encoding="utf-8"))["post"]
    fields = extract("tencent", {**post, "_company": "腾讯"})
    assert fields.title and not fields.title[:1].isdigit() and fields.extra["post_code"]
    posting = normalized("tencent", {**post, "_company": "腾讯"})
    assert posting.country == "CN" and posting.cities and posting.posted_at is not None
    assert posting.degree == "bachelor"


# ------------------------------------------------------------------ bilibili
def bili_position(i: int, **more: object) -> dict:
    return {"id": str(2000 + i), "positionName": f"数据开发工程师{i}", "positionTypeName": "全职", "postCodeName": "技术类",
            "workLocation": "上海", "pushTime": "2026-09-20T03:00:00Z", "positionDescription": f"工作职责：\n1. 建设数据平台{i}", **more}


def serve_bilibili(server: FixtureServer, positions: list[dict], details: dict[str, dict | None]) -> None:
    server.route("/api/srs/position/positionList", json_reply({"code": 0, "message": "success",
                                                               "data": {"list": positions, "total": len(positions)}}))
    for pid, detail in details.items():
        server.route(f"/api/srs/position/detail/{pid}", json_reply({"code": 0, "data": detail, "message": "success"}))


def test_bilibili_search_posts_and_details(server: FixtureServer, client: PoliteClient) -> None:
    positions = [bili_position(0), bili_position(1, positionTypeName="校招"), bili_position(2)]
    detail0 = {**positions[0], "workExperience": "3-5年", "educationRequirements": "本科", "salaryMin": 20, "salaryMax": 35,
               "salaryMonth": 15, "workCity": "", "positionCloseTime": ""}
    serve_bilibili(server, positions, {"2000": detail0, "2001": {**positions[1]}, "2002": None})   # 2002 withdrawn
    result = fetch_source(make_config("bili", "bilibili", base_url=server.base, page_size=10), client)
    assert result.complete, result.error
    assert [p.external_id for p in result.postings] == ["2000", "2001"]
    (search,) = [s for s in server.log if s.path == "/api/srs/position/positionList"]
    assert search.method == "POST" and json.loads(search.body)["pageNum"] == 1
    first = normalized("bilibili", result.postings[0].payload)
    assert (first.salary.min, first.salary.max, first.salary.currency, first.salary.period) == (20000, 35000, "CNY", "month")
    assert first.salary.months_per_year == 15
    assert (first.job_type, first.cities, first.experience_min, first.degree) == ("full_time", ["Shanghai"], 3, "bachelor")
    assert first.company == "哔哩哔哩"
    assert normalized("bilibili", result.postings[1].payload).job_type == "campus"


# ------------------------------------------------------------------ 智联
def zhaopin_result(i: int, **more: object) -> dict:
    return {"number": f"CC1000{i}J0000", "jobName": f"Python开发工程师{i}", "salary": "9K-16K", "emplType": "全职",
            "company": {"number": "CZ1", "name": "南京星河软件有限公司", "size": {"code": "2", "name": "20-99人"},
                        "type": {"code": "5", "name": "民营"}},
            "positionURL": f"https://jobs.zhaopin.com/1000{i}.htm", "workingExp": {"code": "305", "name": "3-5年"},
            "eduLevel": {"code": "4", "name": "本科"}, "city": {"items": [{"code": "635", "name": "南京"}], "display": "南京"},
            "createDate": "2026-09-28 10:38:30", "updateDate": "2026-09-30 08:52:51", "endDate": "2026-10-28 10:38:30",
            "welfare": ["五险一金", "餐补"], **more}


def test_zhaopin_offset_pages_and_quirks(server: FixtureServer, client: PoliteClient) -> None:
    results = [zhaopin_result(0), zhaopin_result(1, salary="校招", emplType="校园"),
               zhaopin_result(2, salary="薪资面议", workingExp={"code": "103"}, eduLevel={"code": "5"},
                              city={"items": [{"code": "530"}], "display": ""})]
    for start, chunk in ((0, results[:2]), (2, results[2:])):
        server.route(f"/c/i/sou?start={start}&pageSize=2&cityId=635&kw=python&kt=3",
                     json_reply({"code": 200, "data": {"numFound": 3, "results": chunk}}))
    config = make_config("zl", "zhaopin", base_url=server.base, page_size=2, keyword="python", city="南京")
    assert config.city == "635"
    result = fetch_source(config, client)
    assert result.complete and [p.external_id for p in result.postings] == [f"CC1000{i}J0000" for i in range(3)]
    first, campus, coded = (normalized("zhaopin", p.payload) for p in result.postings)
    assert (first.salary.min, first.salary.max, first.salary.period, first.salary.currency) == (9000, 16000, "month", "CNY")
    assert (first.cities, first.experience_min, first.experience_max, first.degree) == (["Nanjing"], 3, 5, "bachelor")
    assert first.posted_at == datetime(2026, 9, 28, 2, 38, 30, tzinfo=timezone.utc)     # Beijing time, not UTC
    assert first.valid_through == datetime(2026, 10, 28, 2, 38, 30, tzinfo=timezone.utc)
    assert campus.job_type == "campus" and campus.salary.min is None and not campus.salary.negotiable
    assert coded.salary.negotiable and coded.cities == ["Beijing"]                        # code tables fill names
    assert (coded.experience_min, coded.experience_max, coded.degree) == (1, 3, "associate")


def test_zhaopin_unknown_city_name_is_a_config_error() -> None:
    with pytest.raises(SourcesFileError, match=r"source 'zl': city: unknown city '火星' \(known: 北京, "):
        make_config("zl", "zhaopin", city="火星")
    assert make_config("zl", "zhaopin", city=801).city == "801"


def test_zhaopin_real_results_extract() -> None:
    path = shared_data_path("api_samples", "zh_zhaopin", "fe-api_sou_results_2018__hacknews.json")
    rows = json.loads(path.read_text(encoding="utf-8"))
    postings = [normalized("zhaopin", row, row["number"]) for row in rows]
    assert all(p.title and p.company for p in postings)
    with_pay = [p for p, r in zip(postings, rows) if r["salary"][0].isdigit()]
    assert with_pay and all(p.salary.currency == "CNY" and p.salary.period == "month" and p.salary.min >= 1000
                            for p in with_pay)
    assert all(p.cities == ["Nanjing"] for p in postings)
    assert {p.job_type for p, r in zip(postings, rows) if r["emplType"] == "校园"} == {"campus"}


# ------------------------------------------------------------------ 拉勾
def lagou_position(i: int, **more: object) -> dict:
    return {"positionId": 500 + i, "positionName": f"数据分析师{i}", "city": "杭州", "createTime": "今天 09:15",
            "salary": "15k-25k", "companyId": 77, "companyName": "星云数据", "companyFullName": "杭州星云数据科技有限公司", **more}


def test_lagou_pages_with_a_string_total_and_relative_dates(server: FixtureServer, client: PoliteClient) -> None:
    positions = [lagou_position(0), lagou_position(1, createTime="昨天", salary="4K以上"), lagou_position(2)]
    for page, chunk in ((1, positions[:2]), (2, positions[2:])):
        server.route(f"/search.json?city=%E5%85%A8%E5%9B%BD&positionName=&pageNo={page}&pageSize=2",
                     json_reply({"state": 1, "content": {"data": {"page": {"result": chunk, "pageNo": page,
                                                                            "pageSize": 2, "totalCount": "3"}}}}))
    result = fetch_source(make_config("lg", "lagou", base_url=server.base, page_size=2), client)
    assert result.complete and [p.external_id for p in result.postings] == ["500", "501", "502"]
    assert result.listing.total == 3 and result.listing.doubts == []
    today, yesterday, _ = (normalized("lagou", p.payload) for p in result.postings)
    assert today.posted_at == datetime(2026, 10, 1, 1, 15, tzinfo=timezone.utc)          # 09:15 Beijing, fetch day
    assert yesterday.posted_at is not None and yesterday.posted_at.date() <= datetime(2026, 9, 30).date()
    assert (today.salary.min, today.salary.max) == (15000, 25000) and (yesterday.salary.min, yesterday.salary.max) == (4000, None)
    assert today.company == "星云数据" and today.cities == ["Hangzhou"]
    assert today.url == "https://www.lagou.com/jobs/500.html"


def test_lagou_real_results_extract() -> None:
    path = shared_data_path("api_samples", "zh_lagou", "mobile_positions_search_result_2018__wx-Chat.json")
    rows = json.loads(path.read_text(encoding="utf-8"))
    postings = [normalized("lagou", row, str(row["positionId"])) for row in rows]
    assert all(p.title and p.company and p.cities for p in postings)
    assert all(p.salary.currency == "CNY" and p.salary.min and p.salary.min >= 1000 for p in postings)
    assert all(p.posted_at is not None for p in postings)

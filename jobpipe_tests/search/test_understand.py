"""What a free-text query states: values, spans, conflicts, and auto_filters in search()."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from jobpipe.search import SearchFilters, search
from jobpipe.search.understand import merge_filters, strip_spans, understand
from jobpipe_tests.search.helpers import insert_job


def _said(query: str) -> dict:
    """field -> (value, the query's words it came from), skills as a list of pairs."""
    u = understand(query)
    out = {}
    for name in ("city", "job_type", "remote", "salary_min", "currency", "period", "seniority", "posted_within_days"):
        item = getattr(u, name)
        if item is not None:
            assert query[item.start:item.end] == item.text   # the span is the query's own text
            out[name] = (item.value, item.text)
    out["skills"] = [(s.value, s.text) for s in u.skills]
    return out


def test_chinese_city_type_and_skill_with_spans():
    said = _said("深圳的 AI Agent 实习，薪资多少")
    assert said["city"] == ("Shenzhen", "深圳")
    assert said["job_type"] == ("intern", "实习")
    assert "AI Agent" in [v for v, _ in said["skills"]]
    assert "salary_min" not in said   # asking how much is not a minimum


def test_experience_is_not_pay_and_pay_is_a_monthly_minimum():
    said = _said("上海 3年以上 Java 30k以上")
    assert said["city"] == ("Shanghai", "上海")
    assert said["salary_min"] == (30000.0, "30k以上")
    assert said["currency"][0] == "CNY" and said["period"][0] == "month"
    assert said["skills"] == [("Java", "Java")]
    assert understand("上海 3年以上 Java 30k以上").filters() == {
        "city": "Shanghai", "salary_min": 360000.0, "currency": "CNY"}   # annualized, as the filter compares


def test_english_remote_and_dollar_minimum():
    said = _said("remote Go jobs paying over $150k")
    assert said["remote"] == (True, "remote")
    assert said["salary_min"][0] == 150000.0 and said["currency"][0] == "USD" and said["period"][0] == "year"
    assert ("Go", "Go") in said["skills"]


def test_a_bare_amount_is_in_the_named_citys_currency_or_filters_nothing():
    said = _said("senior frontend engineer in Nanjing, Vue or React, 6-12k")
    assert said["city"] == ("Nanjing", "Nanjing") and said["currency"] == ("CNY", "6-12k")
    assert understand("senior frontend engineer in Nanjing, Vue or React, 6-12k").filters()["currency"] == "CNY"
    assert _said("designer in London over 50k")["currency"][0] == "GBP"
    # no currency and no city to take one from: reported, but no filter (USD would drop every yuan job)
    u = understand("data engineer paying over 150k")
    assert u.salary_min is not None and u.currency is None
    assert "salary_min" not in u.filters() and any("no currency" in n for n in u.notes)
    merged, taken = merge_filters(SearchFilters(), u)
    assert merged.salary_min is None and taken == set()


def test_the_employer_is_no_job_type_and_a_city_or_remote_is_no_filter():
    u = understand("staff scientist at a defense contractor in Cambridge")
    assert u.job_type is None and u.city.value == "Cambridge" and any("employer" in n for n in u.notes)
    assert understand("contract data engineer, remote").filters() == {"job_type": "contract", "remote": True}
    for query in ("敏捷教练，可远程或成都坐班", "remote or Berlin backend engineer"):
        u = understand(query)
        assert u.city is None and u.remote is None and any("or remote" in n for n in u.notes)
    # a city and remote side by side (no "or") still mean both
    assert understand("remote Go jobs in Berlin").filters() == {"city": "Berlin", "remote": True}


@pytest.mark.parametrize(("query", "top", "levels"), [
    ("senior data scientist", "senior", ["senior"]),
    ("高级或资深Java开发", "senior", ["senior"]),                              # two words, one level
    ("lead or principal data scientist", "principal", ["lead", "staff", "principal"]),   # and the one between
    ("首席或高级算法工程师", "principal", ["senior", "lead", "staff", "principal"]),
    ("engineering manager or principal engineer", "principal", ["principal", "manager"]),  # another track
    ("senior product manager", "senior", ["senior"]),                       # a product manager is no level
    ("not a senior role, junior backend", "junior", ["junior"]),            # what is ruled out is not preferred
    ("product manager", None, []),
])
def test_the_levels_a_query_prefers(query, top, levels):
    u = understand(query)
    assert (u.seniority.value if u.seniority else None) == top
    assert u.seniority_levels == levels


def test_seniority_city_and_freshness():
    said = _said("senior data scientist in Singapore, posted this week")
    assert said["city"] == ("Singapore", "Singapore")
    assert said["seniority"] == ("senior", "senior")
    assert said["posted_within_days"] == (7, "posted this week")


@pytest.mark.parametrize("query, days", [
    ("最近一周发布的北京前端岗位", 7), ("校招 算法工程师 近30天", 30), ("python jobs posted in the last 3 days", 3),
    ("data analyst posted today", 1), ("三天内发布的运营岗位", 3), ("backend roles from the past month", 30),
])
def test_freshness_phrases(query, days):
    assert understand(query).posted_within_days.value == days


@pytest.mark.parametrize("query, city", [
    ("data engineer in sf", "San Francisco"),           # a lower-case abbreviation after "in"
    ("senior data scientist in singapore", "Singapore"),  # lower case, a well-known city
    ("旧金山的数据工程师", "San Francisco"),
    ("北京市 测试工程师", "Beijing"),
])
def test_city_spellings(query, city):
    assert understand(query).city.value == city


@pytest.mark.parametrize("query", [
    "mobile developer for reading apps",   # lower-case words that are also small cities
    "smart contract engineer",
    "top 10 python jobs",
    "lead or principal data scientist",    # 'or' makes 'lead' a whole segment to the location parser
])
def test_common_words_are_not_constraints(query):
    u = understand(query)
    assert u.city is None and u.job_type is None and u.salary_min is None


def test_a_skill_phrase_wins_over_the_job_type_word_inside_it():
    u = understand("smart contract engineer, solidity")
    assert u.job_type is None
    assert "Smart Contracts" in [s.value for s in u.skills]
    assert understand("contract data analyst, 6 months").job_type.value == "contract"


def test_company_headquarters_is_not_the_job_city():
    u = understand("总部在香港的加密交易所招远程前端")
    assert u.city is None and u.remote.value is True
    assert any("香港" in n for n in u.notes)


def test_pay_ceiling_and_several_cities_are_noted_not_filtered():
    u = understand("远程的交易所运营主管，8000U以内")
    assert u.salary_min is None and any("8000U以内" in n for n in u.notes)
    u = understand("北京或上海的数据分析")
    assert u.city is None and any("北京" in n and "上海" in n for n in u.notes)


def test_remote_ruled_out():
    assert understand("不接受远程的后端开发 杭州").remote.value is False


def test_empty_and_odd_input():
    assert understand("").filters() == {}
    assert understand("   ").filters() == {}
    understand("$$$ 万万万 ---- 以上以上 " * 20)   # never raises


def test_explicit_filters_win_and_fields_set_are_respected():
    u = understand("深圳的 Java 实习 30k以上")
    merged, taken = merge_filters(SearchFilters.parse({"city": "上海"}), u)
    assert merged.city == "上海" and merged.job_type == "intern"
    assert taken == {"job_type", "salary_min"} and merged.currency == "CNY"
    # an explicit currency with no amount keeps the query's amount out (it may be in another currency)
    merged, taken = merge_filters(SearchFilters.parse({"currency": "USD"}), u)
    assert merged.salary_min is None and "salary_min" not in taken


def test_out_of_bounds_value_is_dropped_not_raised():
    merged, taken = merge_filters(SearchFilters(), understand("年薪 9999999999万以上 的工作"))
    assert "salary_min" not in taken


def test_strip_spans():
    assert strip_spans("深圳的 AI Agent 实习", [(0, 2), (13, 15)]) == "的 AI Agent"


def test_search_applies_understood_filters_only_when_asked(db):
    sz = insert_job(db, "sz", "AI Agent 开发实习生", cities=["Shenzhen"], job_type="intern",
                    description="参与大模型 Agent 应用开发。")
    insert_job(db, "bj", "AI Agent 开发实习生", cities=["Beijing"], job_type="intern", description="大模型 Agent 开发。")
    insert_job(db, "sz_full", "AI Agent 开发工程师", cities=["Shenzhen"], job_type="full_time",
               description="大模型 Agent 应用开发。")
    db.commit()
    plain = search(db, "深圳的 AI Agent 实习", mode="keyword")
    assert plain.understood.city.value == "Shenzhen" and plain.auto_filters == ()
    assert len(plain.results) == 3
    auto = search(db, "深圳的 AI Agent 实习", mode="keyword", auto_filters=True, debug=True)
    assert [r.job_id for r in auto.results] == [sz]
    assert set(auto.auto_filters) == {"city", "job_type"}
    assert auto.filters.city == "Shenzhen" and auto.filters.job_type == "intern"
    assert "深圳" not in auto.debug["search_text"] and "实习" not in auto.debug["search_text"]
    # an explicit filter wins over the query's city
    other = search(db, "深圳的 AI Agent 实习", SearchFilters.parse({"city": "北京"}), mode="keyword", auto_filters=True)
    assert [r.external_id for r in other.results] == ["bj"]


def test_query_of_only_constraints_browses_under_them(db):
    insert_job(db, "a", "运营专员", cities=["Hangzhou"], job_type="intern", posted_days_ago=1)
    insert_job(db, "b", "运营专员", cities=["Beijing"], job_type="intern", posted_days_ago=1)
    db.commit()
    response = search(db, "杭州 实习", auto_filters=True)
    assert response.mode == "browse" and [r.external_id for r in response.results] == ["a"]


@pytest.mark.parametrize(("query", "field", "value", "text"), [
    ("不要外包 上海 测试", "job_type", "contract", "不要外包"),
    ("外包勿扰 前端", "job_type", "contract", "外包勿扰"),
    ("非外包 北京", "job_type", "contract", "非外包"),
    ("实习不考虑。上海 运营", "job_type", "intern", "实习不考虑"),
    ("backend engineer, no contract roles", "job_type", "contract", "no contract"),
    ("除了北京 其他城市的产品经理", "city", "Beijing", "除了北京"),
    ("北京以外的后端开发", "city", "Beijing", "北京以外"),
    ("Python developer without Django", "skills", "Django", "without Django"),
    ("Java 不要 Android", "skills", "Android", "不要 Android"),
    ("not a senior role, junior backend", "seniority", "senior", "not a senior"),
])
def test_what_the_query_rules_out_is_never_a_filter_or_a_preference(query, field, value, text):
    u = understand(query)
    assert [(e.field, e.value, e.text) for e in u.excluded] == [(field, value, text)]
    assert all(query[e.start:e.end] == e.text for e in u.excluded)
    stated = {"city": u.city, "job_type": u.job_type, "seniority": u.seniority}
    if field == "skills":
        assert value not in [s.value for s in u.skills]
    else:
        assert stated[field] is None or stated[field].value != value
    assert value not in u.filters().values()
    assert any(text in note for note in u.notes)


def test_a_ruled_out_statement_leaves_room_for_the_one_wanted():
    said = _said("no internships, data analyst full-time")
    assert said["job_type"] == ("full_time", "full-time")
    said = _said("Java 不要 Android")
    assert said["skills"] == [("Java", "Java")]          # 不要 rules out what follows it, not Java


def test_remote_ruled_out_is_remote_false():
    for query, text in (("no-remote Java", "no-remote"), ("不要远程 上海 java", "不要远程"), ("not remote, Berlin", "not remote")):
        assert _said(query)["remote"] == (False, text)
    assert _said("非常好的远程工作")["remote"] == (True, "远程")   # 非常 is "very", not a negation
    assert understand("故障排除 Linux 运维").excluded == []         # troubleshooting, not "exclude Linux"


def test_search_does_not_look_for_what_the_query_rules_out(db):
    android = insert_job(db, "android", "Java Developer", description="Build our Android app in Java.")
    server = insert_job(db, "server", "Java Developer", description="Build our payment services in Java.")
    for i, title in enumerate(("Sales Representative", "Accountant", "Office Manager", "Recruiter")):
        insert_job(db, f"other{i}", title, description="Day to day work.")
    db.commit()
    plain = {r.job_id: r.score for r in search(db, "Java developer Android", mode="keyword").results}
    assert plain[android] > plain[server]                  # asked for, Android lifts its posting
    response = search(db, "Java developer without Android", mode="keyword", debug=True)
    unsaid = search(db, "Java developer", mode="keyword")
    # ruled out, Android lifts nothing: the search is the one without it
    assert [(r.job_id, r.score) for r in response.results] == [(r.job_id, r.score) for r in unsaid.results]
    assert "android" not in response.debug["search_text"].lower() and "without" not in response.debug["search_text"]
    assert [(e.field, e.value) for e in response.understood.excluded] == [("skills", "Android")]
    assert "Android" not in [s.value for s in response.understood.skills]   # nor a preference of the ranking
    auto = search(db, "不要外包 Java developer", mode="keyword", auto_filters=True)
    assert auto.filters.job_type is None and auto.auto_filters == ()


@pytest.mark.parametrize(("query", "city"), [
    ("上海浦东 Java", "Shanghai"), ("上海浦东新区 java", "Shanghai"), ("上海南京路 店长", "Shanghai"),
    ("北京朝阳 产品", "Beijing"),
])
def test_a_city_written_together_with_its_district(query, city):
    said = _said(query)
    assert said["city"] == (city, query[:2])   # the city's own name, not the district's words


def test_a_street_named_after_a_city_is_no_city():
    assert "city" not in _said("南京路 店长")


@pytest.mark.parametrize(("query", "skill", "text"), [
    ("rust developer remote", "Rust", "rust"), ("senior react engineer in shanghai", "React", "react"),
    ("go 后端 北京", "Go", "go"), ("unity 开发 上海", "Unity", "unity"),
])
def test_a_lower_case_skill_before_a_role_word_is_the_skill(query, skill, text):
    assert (skill, text) in _said(query)["skills"]


@pytest.mark.parametrize("query", ["spring internship 2026", "go to market manager", "remote rust"])
def test_a_lower_case_word_without_a_role_word_stays_a_word(query):
    assert _said(query)["skills"] == []


@pytest.mark.parametrize(("query", "currency", "noted"), [
    ("香港 量化研究员 年薪100万", "HKD", True), ("新加坡 后端 月薪1万以上", "SGD", True),
    ("伦敦 数据科学家 年薪6万", "GBP", True), ("上海 后端 月薪3万", "CNY", False),
    ("香港 后端 2万港币", "HKD", False), ("新加坡 后端 5k U", "USDT", False), ("东京 前端 年薪800万円", "JPY", False),
])
def test_a_chinese_amount_is_in_the_named_citys_currency_unless_one_is_written(query, currency, noted):
    u = understand(query)
    assert u.currency is not None and u.currency.value == currency
    assert any("read as" in n for n in u.notes) == noted


@pytest.mark.parametrize(("query", "days", "text"), [
    ("posted in the last 48 hours", 2, "posted in the last 48 hours"), ("past 24 hours data analyst", 1, "past 24 hours"),
    ("24小时内发布的运营", 1, "24小时内发布的"), ("最近72小时 前端", 3, "最近72小时"),
    ("yesterday java jobs", 2, "yesterday"), ("昨天发布的 测试", 2, "昨天发布的"),
])
def test_freshness_in_hours_and_yesterday_is_whole_days(query, days, text):
    assert _said(query)["posted_within_days"] == (days, text)


@pytest.mark.parametrize("query", ["8小时工作制 上海 运营", "上海 兼职 每天4小时", "8 hours shift nurse"])
def test_hours_of_work_are_no_freshness(query):
    assert "posted_within_days" not in _said(query)


@pytest.mark.parametrize("query", ["兼职或实习 运营", "part-time or full-time designer", "全职/兼职 翻译"])
def test_two_job_types_named_apply_neither(query):
    u = understand(query)
    assert u.job_type is None and "job_type" not in u.filters()
    assert any(n.startswith("several job types named") for n in u.notes)


@pytest.mark.parametrize(("query", "wanted", "ruled_out"), [
    ("不要外包 全职 测试", "full_time", "不要外包"), ("全职 外包勿扰 测试", "full_time", "外包勿扰"),
    ("full-time, no contract roles", "full_time", "no contract"),
])
def test_a_job_type_beside_one_ruled_out_is_the_one_wanted(query, wanted, ruled_out):
    u = understand(query)
    assert u.job_type is not None and u.job_type.value == wanted
    assert [e.text for e in u.excluded] == [ruled_out]


def test_beijing_capitalized_at_the_start_is_the_city_but_beijing_time_is_not():
    said = _said("Beijing java 30k")
    assert said["city"] == ("Beijing", "Beijing") and said["currency"] == ("CNY", "30k")
    assert said["period"][0] == "month"                     # 30k in yuan is a month's pay
    assert "city" not in _said("remote, Beijing time zone, golang")


def test_an_amount_in_a_citys_currency_takes_that_currencys_period():
    said = _said("salary 20-30k shanghai java")
    assert said["currency"][0] == "CNY" and said["period"][0] == "month"
    assert _said("designer in London over 50k")["period"][0] == "year"


@pytest.mark.parametrize(("query", "pay"), [
    ("data scientist Bangalore 20 LPA", (2_000_000, "INR", "year")),   # lakhs per annum
    ("java developer 15 lakhs", (1_500_000, "INR", "year")),
    ("₹12 lakh backend", (1_200_000, "INR", "year")),
    ("python jobs in Mumbai above Rs 50,000 per month", (50_000, "INR", "month")),
])
def test_indian_pay_is_read(query, pay):
    u = understand(query)
    assert (u.salary_min.value, u.currency.value, u.period.value) == pay


@pytest.mark.parametrize("query", ["lacquer artist", "Lpa? no", "hiring 30 backend engineers"])
def test_words_beginning_like_a_lakh_are_no_pay(query):
    assert understand(query).salary_min is None


def test_a_posting_date_window_is_read_placed_by_today_and_applied_when_asked(db):
    u = understand("2021年2月发布的产品经理")
    assert (u.posted_from.value, u.posted_until.value, u.posted_from.text) == (
        date(2021, 2, 1), date(2021, 2, 28), "2021年2月发布")
    assert u.filters() == {"posted_from": date(2021, 2, 1), "posted_until": date(2021, 2, 28)}
    # a month without a year is placed by the day asked on, not by the day first cached
    assert understand("posted in November", date(2026, 12, 7)).posted_from.value == date(2026, 11, 1)
    assert understand("posted in November", date(2026, 10, 7)).posted_from.value == date(2025, 11, 1)

    insert_job(db, "new", "运营专员", posted_days_ago=2)
    insert_job(db, "old", "运营专员", posted_days_ago=40)
    db.commit()
    since = (datetime.now(timezone.utc).date() - timedelta(days=10)).isoformat()
    query = f"运营 posted since {since}"
    assert {r.external_id for r in search(db, query, mode="keyword").results} == {"new", "old"}   # read, not applied
    auto = search(db, query, mode="keyword", auto_filters=True, debug=True)
    assert [r.external_id for r in auto.results] == ["new"] and auto.auto_filters == ("posted_from",)
    assert since not in auto.debug["search_text"]
    # two statements, one end each; ends that leave no day between them are noted, not applied
    both = understand("jobs posted since 2026-11-01, posted before 2026-12-01")
    assert (both.posted_from.value, both.posted_until.value) == (date(2026, 11, 1), date(2026, 11, 30))
    crossed = understand("jobs posted since 2026-11-01, posted before 2026-10-01")
    assert crossed.posted_from is None and crossed.posted_until is None
    assert any("no day between them" in note for note in crossed.notes)
    # the caller's start stands; a stated end before it is left out rather than failing the search
    merged, taken = merge_filters(SearchFilters(posted_from=date(2026, 11, 1)), understand("posted before 2026-10-01"))
    assert (merged.posted_from, merged.posted_until, taken) == (date(2026, 11, 1), None, set())


@pytest.mark.parametrize(("query", "city", "noted"), [
    ("南旧金山 基因泰克的数据科学家", "South San Francisco", None),     # a direction before a name: another city
    ("湖南长沙 前端", "Changsha", None),                                 # a province's 南, not a direction
    ("圣地亚哥 保险集团的数据工程师", None, "may be Santiago or San Diego"),  # the dictionary's two cities
    ("remote Kubernetes engineer for a Hong Kong SaaS company", None, "where the company is"),
    ("data analyst at a Beijing startup", "Beijing", None),             # not remote: the job is there too
])
def test_a_city_filter_only_where_the_name_means_the_jobs_one_city(query, city, noted):
    u = understand(query)
    assert u.filters().get("city") == city
    assert noted is None or any(noted in n for n in u.notes), u.notes

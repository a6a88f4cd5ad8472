"""Places and the work arrangement stated in titles and descriptions, not only in the fields.

Invented short texts in the shapes boards use: a bracketed title prefix, a posting template with
labelled lines, plain sentences; and the statements that must not count (benefits, colleagues,
a science, a mix of duties).
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting, resolve_locations
from jobpipe.normalize.location import title_places
from jobpipe.normalize.statements import labelled_lines, mode_of_value, stated_mode

FETCHED = datetime(2026, 12, 1, tzinfo=timezone.utc)


def normalize(**fields: object):
    return normalize_posting(PostingFields(**fields), source="t", external_id="1", fetched_at=FETCHED)


@pytest.mark.parametrize(("title", "cities", "mode"), [
    ("[杭州/远程] 某公司诚聘 Go 工程师", ("Hangzhou",), "remote"),
    ("[Remote/HK] Example Labs is looking for a Rust Engineer", ("Hong Kong",), "remote"),
    ("后台开发工程师(深圳/广州)", ("Shenzhen", "Guangzhou"), None),
    ("大数据算法工程师(驻天津)", ("Tianjin",), None),
    ("系统设计（工作地址西安）", ("Xi'an",), None),
    ("Partner Manager (f/m/d) - Berlin, Germany", ("Berlin",), None),
    ("Account Executive - Spain (Madrid based)", ("Madrid",), None),
    ("Machine Learning Engineer - US Remote", (), "remote"),
    ("[SZ/HK] 某交易所诚聘 测试专家", ("Hong Kong",), None),   # an unknown code beside a known place
])
def test_title_place_groups(title: str, cities: tuple[str, ...], mode: str | None) -> None:
    found_cities, _, found_mode = title_places(title)
    assert found_cities == cities and found_mode == mode


@pytest.mark.parametrize("title", [
    "后端工程师 (Python/Go)", "大数据研发工程师（深圳某某集团）", "数据服务开发工程师（java+Oracle）",
    "Data Science Engineer - Mobile", "Online Partner Manager (MENA), Example", "[城市名] XXXX 公司诚聘 XX工程师",
    "Lead Data Analyst - Front End", "IT系统开发岗（大数据方向）(002238)",
])
def test_title_groups_that_name_no_place(title: str) -> None:
    assert title_places(title) == ((), None, None)


TEMPLATE = """公司/团队介绍
一家交易平台
地点
- 工作地点：{where}
- 联系方式：someone@example.com
工作性质
- 是否全职：是
- 是否远程：{remote}
岗位要求、职责
熟悉 Go"""


def test_template_lines_stand_in_for_empty_fields() -> None:
    p = normalize(title="某公司诚聘 Go 工程师", description=TEMPLATE.format(where="杭州", remote="否"))
    assert (p.cities, p.country, p.remote) == (["Hangzhou"], "CN", "onsite")
    p = normalize(title="某公司诚聘 Go 工程师", description=TEMPLATE.format(where="Onsite（Hangzhou）", remote="否"))
    assert (p.cities, p.remote) == (["Hangzhou"], "onsite")


def test_a_location_field_wins_over_description_lines() -> None:
    p = normalize(title="Go 工程师", location="上海", description=TEMPLATE.format(where="杭州", remote="可选"))
    assert (p.cities, p.remote) == (["Shanghai"], "remote")


@pytest.mark.parametrize(("value", "mode"), [
    ("否", "onsite"), ("是", "remote"), ("可选", "remote"), ("不支持", "onsite"), ("非远程", "onsite"),
    ("暂时不接受远程", "onsite"), ("坐班优先，远程也接受", "remote"), ("部分远程", "hybrid"),
    ("深圳-是，香港-否", "remote"), ("可商量", None), ("negotiable", None), ("it depends", None),
    ("remote or HK", "remote"), ("Hybrid", "hybrid"), ("On-site", "onsite"),
])
def test_labelled_arrangement_values(value: str, mode: str | None) -> None:
    assert mode_of_value(value) == mode


def test_english_template_heading_lines() -> None:
    text = "Job Nature\n- Full-time or not: full time\n- Remote or not: negotiable\nWork Location\nremote / HK\n"
    found = labelled_lines(text)
    assert found.get("location") == ["remote / HK"] and found.get("mode") == ["negotiable"]
    p = normalize(title="Smart Contract Developer", description=text)
    assert (p.cities, p.remote) == (["Hong Kong"], "remote")


@pytest.mark.parametrize(("text", "mode"), [
    ("This position is located in Springfield. It is not a remote role.", "onsite"),
    ("It is not a remote role. Fridays are work from home days.", "hybrid"),
    ("This role can be based remotely. US citizenship required.", "remote"),
    ("We are hiring for three offices as well as remote.", "remote"),
    ("This position will be remote to start, onsite in Springfield in the future.", "onsite"),
    ("This role is 100% remote now but will be on site Mon-Fri once it is safe to return.", "onsite"),
    ("Must be comfortable being on-site 5 days a week in our downtown office.", "onsite"),
    ("Come into the office 2 days per week, or 3 when needed.", "hybrid"),
    ("Work location: Springfield with local telework options.", "hybrid"),
    ("Perks: casual dress and WFH flexibility.", "hybrid"),
    ("Fully remote, with work-from-home flexibility and a laptop.", "remote"),
    ("每周两天到岗，其余时间居家。", "hybrid"),
    ("工作环境：base杭州线下", "onsite"),
])
def test_arrangement_sentences(text: str, mode: str) -> None:
    assert stated_mode(text.lower()) == mode


@pytest.mark.parametrize("text", [
    "Benefits: home-office stipend, remote-friendly tools and an onsite gym.",
    "You will work independently as part of remote, interdisciplinary teams.",
    "Experience with remote sensing and remote monitoring of sensors.",
    "The analyst will serve a hybrid role in supporting our sales team.",
    "Experience with hybrid cloud deployments.",
    "Free snacks in the office and in-office lunches on Fridays.",
])
def test_statements_that_say_nothing_about_the_arrangement(text: str) -> None:
    assert stated_mode(text.lower()) is None
    assert normalize(title="Data Scientist", location="Springfield, IL", description=text).remote is None


def test_a_stated_hybrid_corrects_a_remote_location_list() -> None:
    p = normalize(title="Partner Representative", location="Berlin, Germany", locations=["Germany/Remote"],
                  remote_hint="hybrid", description="Remote-first, Berlin office minimum once a week.")
    assert p.remote == "hybrid"
    p = normalize(title="Engineer", location="Remote", description="Remote to start, onsite in Springfield in the future.")
    assert p.remote == "onsite"


@pytest.mark.parametrize(("text", "cities", "country"), [
    ("Saint Louis, MO", ["St. Louis"], "US"),          # one city under both spellings; the state decides
    ("重庆-渝北区", ["Chongqing"], "CN"),               # 渝北区 is a district, not Tokyo's 北区
    ("广州-荔湾区", ["Guangzhou"], "CN"),               # 荔湾区 is no 湾区 (Bay Area)
    ("Georgia Southern, GA", [], "US"),                # a state code beside a name that is a country and a state
    ("Tbilisi, Georgia", ["Tbilisi"], "GE"),
])
def test_location_readings(text: str, cities: list[str], country: str) -> None:
    found_cities, found_country, _ = resolve_locations(text)
    assert found_cities == cities and found_country == country

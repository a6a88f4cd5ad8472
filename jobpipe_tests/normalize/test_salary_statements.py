"""Pay stated where the salary field is empty: a section heading over the amount, the title, a
broken structured value; months of pay stated only in the text; a unit on both ends of a range."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting, parse_salary


def normalize(**fields: object):
    return normalize_posting(PostingFields(**fields), source="t", external_id="1",
                             fetched_at=datetime(2026, 12, 1, tzinfo=timezone.utc))


def pay(p) -> tuple:
    s = p.salary
    return s.min, s.max, s.currency, s.period, s.months_per_year


@pytest.mark.parametrize(("description", "expected"), [
    ("公司介绍\n薪资福利待遇\n3,500 - 6,500U\n地点\n- 工作地点：远程", (3500, 6500, "USDT", "month", None)),
    ("About\nSalary and Benefits\n1500U - 2000U / Month\nLocation", (1500, 2000, "USDT", "month", None)),
    ("岗位要求 ...\n薪资\n\n30K-40K RMB\nUI设计师", (30000, 40000, "CNY", "month", None)),
    ("Job Type: Full-time\nSalary: $80,000.00 to $150,000.00 /year", (80000, 150000, "USD", "year", None)),
])
def test_pay_under_a_heading_or_label(description: str, expected: tuple) -> None:
    assert pay(normalize(title="测试工程师", description=description)) == expected


def test_a_template_heading_without_amounts_is_no_pay() -> None:
    p = normalize(title="测试工程师", description="薪资福利待遇\n开发者喜欢薪资范围准确的招聘信息。\n此项必须填写\n地点")
    assert p.salary.min is None and p.salary.max is None


@pytest.mark.parametrize(("title", "expected"), [
    ("[远程] 某交易所 招聘 测试工程师 3,000 - 6,500U", (3000, 6500, "USDT", "month", None)),
    ("[远程办公] 交易所诚聘 TA岗位 USD 1500-4000", (1500, 4000, "USD", "month", None)),
    ("Web3公司招聘合约交易员1000-3000U/月", (1000, 3000, "USDT", "month", None)),
])
def test_pay_in_a_title_without_a_pay_word(title: str, expected: tuple) -> None:
    assert pay(normalize(title=title)) == expected


@pytest.mark.parametrize("title", ["Python 3.8 Developer (2-5 years)", "CMC TOP15 CEX 招聘 Go 工程师", "Engineer 2-3 days on site",
                                   "Web3 10x Engineer"])
def test_titles_without_pay(title: str) -> None:
    p = normalize(title=title)
    assert p.salary.min is None and p.salary.max is None


def test_a_broken_structured_salary_leaves_the_title_pay() -> None:
    """A career page put the experience ("2.3-5年") into baseSalary; the title states the pay."""
    p = normalize(title="[远程] 测试工程师 3,000 - 6,500U", salary={"@type": "MonetaryAmount", "value": "2.3-5年"})
    assert pay(p) == (3000, 6500, "USDT", "month", None)


@pytest.mark.parametrize(("text", "currency"), [("3500u-6000u", "USDT"), ("薪水3500-6000/U", "USDT"), ("$53K-$91K", "USD"),
                                                 ("€6,500 – €7,000", "EUR")])
def test_a_unit_or_currency_on_both_ends(text: str, currency: str) -> None:
    assert parse_salary(text).currency == currency


@pytest.mark.parametrize(("description", "months"), [
    ("福利：正式员工享受十三薪及年终奖", 13), ("五险一金 年底双薪 节日福利", 13), ("有机会享13-17薪。", 13),
    ("全年13至14薪", 13), ("加班双薪，周末双休", None), ("2018薪资调整", None),
])
def test_months_of_pay_stated_only_in_the_text(description: str, months: int | None) -> None:
    assert normalize(title="数据分析师", salary_text="8千-1万", description=description).salary.months_per_year == months


def test_months_in_the_salary_field_win() -> None:
    assert normalize(title="x", salary_text="15-25K·14薪", description="年底双薪").salary.months_per_year == 14

"""Every short text field is read after repair: Python-list cells unwrapped, mojibake undone.

Scraped CSVs wrap cells in list literals ("['数据工程师']") and old exports hold GBK bytes read as
Latin-1 in every column, company names included; the salary, city, type, experience and degree
parsers can only read the repaired text.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting
from jobpipe.normalize.text import repair_cell, repair_mojibake

FETCHED = datetime(2026, 12, 1, tzinfo=timezone.utc)


def gbk_mojibake(text: str) -> str:
    """What a GBK file read as Latin-1 and saved as UTF-8 looks like."""
    return text.encode("gbk").decode("latin-1")


def normalize(**fields: object):
    return normalize_posting(PostingFields(**fields), source="t", external_id="1", fetched_at=FETCHED)


@pytest.mark.parametrize(("cell", "expected"), [
    ("['数据工程师']", "数据工程师"),
    ("['1-1.5万/月']", "1-1.5万/月"),
    ("['上海', '北京']", "上海 / 北京"),
    ('["Remote"]', "Remote"),
    ("[]", ""),
    ("[Remote] Rust 工程师", "[Remote] Rust 工程师"),     # a title in brackets is no list literal
    ("['a', __import__('os')]", "['a', __import__('os')]"),  # never evaluated
])
def test_list_cells_are_unwrapped(cell: str, expected: str) -> None:
    assert repair_cell(cell) == expected


def test_list_cells_reach_every_parser() -> None:
    p = normalize(title="['大数据开发工程师']", company="['某某网络科技有限公司']", location="['上海-浦东新区']",
                  salary_text="['1-1.5万/月']", experience_text="['3-4年工作经验']", degree_text="['本科']")
    assert p.title == "大数据开发工程师" and p.company == "某某网络科技有限公司"
    assert p.cities == ["Shanghai"]
    assert (p.salary.min, p.salary.max, p.salary.currency, p.salary.period) == (10000, 15000, "CNY", "month")
    assert (p.experience_min, p.experience_max, p.degree) == (3, 4, "bachelor")


def test_gbk_mojibake_is_repaired_in_every_short_field() -> None:
    p = normalize(title=gbk_mojibake("数据分析师"), company=gbk_mojibake("深圳市某某科技有限公司"),
                  location=gbk_mojibake("深圳"), salary_text=gbk_mojibake("15k以上"),
                  experience_text=gbk_mojibake("3-5年"), degree_text=gbk_mojibake("硕士"),
                  employment_type=gbk_mojibake("全职"))
    assert p.title == "数据分析师" and p.company == "深圳市某某科技有限公司"
    assert p.cities == ["Shenzhen"] and p.country == "CN"
    assert (p.salary.min, p.salary.max, p.salary.currency) == (15000, None, "CNY")
    assert (p.experience_min, p.experience_max) == (3, 5)
    assert p.degree == "master"       # 硕士's GBK bytes are also valid UTF-8 (two modifier letters)
    assert p.job_type == "full_time"


@pytest.mark.parametrize("text", ["São Paulo", "Zürich", "Ærøskøbing", "Crème brûlée GmbH", "Kraków, Poland"])
def test_accented_latin_is_left_alone(text: str) -> None:
    assert repair_mojibake(text) == text


def test_utf8_read_as_latin1_is_repaired() -> None:
    assert repair_mojibake("CafÃ© MÃ¼ller") == "Café Müller"
    assert repair_mojibake("ä¸Šæµ·") == "上海"


def test_a_degree_in_the_experience_cell_is_the_degree() -> None:
    """51job shifts its columns when the experience is missing: 工作经验 holds "大专"."""
    p = normalize(title="销售代表", experience_text="['大专']", degree_text="[]")
    assert p.degree == "associate" and p.experience_min is None

"""Seniority classes seen in real titles: job families, words that look like levels, numbers,
Latin words touching Chinese, and levels stated outside the title."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting, parse_seniority


@pytest.mark.parametrize(("title", "level"), [
    # a manager of a product, project, program, account, data or customer success is a job family
    ("Product Manager", None), ("Senior Product Manager", "senior"), ("Technical Program Manager", None),
    ("Account Manager, Media Sales", None), ("Clinical Data Manager", None), ("Customer Success Manager", None),
    ("Office Manager", None), ("大数据产品经理", None), ("资深产品经理", "senior"), ("项目经理(动画方向)", None),
    # people managers stay managers
    ("Engineering Manager", "manager"), ("Partner Support Manager", "manager"), ("运营经理", "manager"),
    ("销售主管", "manager"),
    # general managers are executives; their assistants are not
    ("事业部总经理", "director"), ("总经理助理", "junior"), ("Head Data Scientist, Imaging", "director"),
    ("Headcount Planner", None),
    # words that look like levels
    ("Member of Technical Staff", None), ("Staff Accountant", None), ("Mid-Market Account Executive", None),
    ("数据科学家", None), ("首席科学家", "principal"),
    # spellings the vocabulary lacked
    ("大数据构架师", "staff"), ("游戏2D主美", "lead"), ("测试Leader", "lead"), ("商业管培生", "junior"),
    ("（某公司2020校招）开发工程师", "junior"),
    # a Latin word touching Chinese characters
    ("Senior量化交易系统工程师", "senior"), ("资深Java工程师", "senior"),
    # level numbers after the role
    ("Data Scientist 3", "senior"), ("Software Engineer 2", "mid"), ("Analyst 1", "junior"),
    ("Data Scientist 3 (718)", "senior"), ("Python 3 Developer", None),
])
def test_title_levels(title: str, level: str | None) -> None:
    assert parse_seniority.__wrapped__(title) == level


def normalize(**fields: object):
    return normalize_posting(PostingFields(**fields), source="t", external_id="1",
                             fetched_at=datetime(2026, 12, 1, tzinfo=timezone.utc))


def test_an_ats_experience_level_code_is_a_level() -> None:
    assert normalize(title="Customer Success Engineer", experience_text="mid_level").seniority == "mid"
    assert normalize(title="Customer Success Engineer", experience_text="3-5 years").seniority is None


def test_the_description_naming_the_titles_role_with_a_level() -> None:
    p = normalize(title="Data Engineer", description="Example Co is seeking a Senior Data Engineer to own our pipelines.")
    assert p.seniority == "senior"
    p = normalize(title="Data Analyst", description="You will be looking for a senior leader to sponsor projects.")
    assert p.seniority is None

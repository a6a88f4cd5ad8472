"""Every filterable field says where its value came from (NormalizedPosting.field_origins)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from jobpipe.models import ORIGIN_FIELDS, ORIGINS, PostingFields
from jobpipe.normalize import normalize_posting

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def _normalize(**fields):
    return normalize_posting(PostingFields(**fields), source="s", external_id="1", fetched_at=NOW)


def test_structured_fields_are_the_source_fields():
    p = _normalize(title="Data Engineer", location="Berlin", remote_hint="Remote", salary_text="€60,000 - €80,000 a year",
                   employment_type="FULL_TIME", seniority="Senior", description="Build pipelines.")
    assert p.field_origins == {"remote": "source_field", "salary": "source_field", "job_type": "source_field",
                               "seniority": "source_field", "cities": "source_field"}


def test_values_read_from_the_title():
    p = _normalize(title="[深圳/远程] 高级后端实习生 薪资 10-15K", description="负责后端开发。")
    assert p.remote == "remote" and p.cities == ["Shenzhen"] and p.job_type == "intern"
    assert p.field_origins["remote"] == "title" and p.field_origins["cities"] == "title"
    assert p.field_origins["job_type"] == "title" and p.field_origins["seniority"] == "title"
    assert p.field_origins["salary"] == "title"


def test_values_read_from_the_description():
    p = _normalize(title="Backend Engineer", description=(
        "工作地点：杭州\n是否远程：是\n薪资范围：30-50K\nThis is a full-time position."))
    assert p.field_origins == {"remote": "description", "salary": "description", "job_type": "description",
                               "cities": "description"}


@pytest.mark.parametrize("description", [
    "福利：远程办公补贴，五险一金",
    "薪资福利待遇\n- 五险一金\n- 可申请居家办公\n岗位职责\n- 负责后端开发",
    "Benefits\n- Health insurance\n- Work from anywhere weeks\n",
])
def test_remote_named_only_among_benefits_is_inferred(description):
    p = _normalize(title="后端工程师", location="上海", description=description)
    assert p.remote == "remote"
    assert p.field_origins["remote"] == "inferred"


def test_a_remote_statement_outside_the_benefits_is_stated():
    p = _normalize(title="后端工程师", location="上海", description="福利：远程办公补贴\n本岗位支持远程办公。")
    assert p.field_origins["remote"] == "description"


def test_a_home_office_stipend_is_no_remote_at_all():
    p = _normalize(title="Engineer", location="Berlin", description="Benefits: a home-office stipend and a gym budget.")
    assert p.remote is None and "remote" not in p.field_origins


def test_fields_without_a_value_have_no_origin_and_origins_are_known():
    p = _normalize(title="Engineer", description="Build things.")
    assert p.field_origins == {}
    p = _normalize(title="Senior Engineer (Remote)", location="NYC", salary_text="$100k", description="")
    assert set(p.field_origins) <= set(ORIGIN_FIELDS) and set(p.field_origins.values()) <= set(ORIGINS)

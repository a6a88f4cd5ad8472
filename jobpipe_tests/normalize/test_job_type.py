from __future__ import annotations

import pytest

from jobpipe.normalize.job_type import parse_job_type, parse_seniority


@pytest.mark.parametrize("etype,title,expected", [
    ("全职", "后端开发工程师", "full_time"),
    ("兼职", "翻译", "part_time"),
    ("实习", "数据分析", "intern"),
    ("校招", "算法工程师", "campus"),
    ("社招", "产品经理", "full_time"),
    (None, "2027届校招-Java开发", "campus"),
    (None, "应届生-前端开发", "campus"),
    (None, "Software Engineer, New Graduate 2026", "campus"),
    (None, "New Grads - Data Analyst", "campus"),
    (None, "Gradual Rollout Engineer", None),
    ("全职", "AI Agent 实习生", "intern"),            # title wins over generic full-time
    ("Full-time", "Software Engineering Intern", "intern"),
    ("Part-time", "Barista", "part_time"),
    ("Contract", "Data Engineer", "contract"),
    ("Temporary", "Analyst", "contract"),
    ("FULL_TIME", "Engineer", "full_time"),
    (["PART_TIME", "CONTRACTOR"], "Engineer", "part_time"),
    (["FULL_TIME", "INTERN"], "Engineer", "intern"),
    ("CONTRACTOR", None, "contract"),
    ("全/兼职", "运营", "part_time"),           # open to both: the part-time option is what sets it apart
    ("全职/兼职", "运营", "part_time"),
    ("是否全职：否", "运营", "part_time"),
    ("否，兼职", "运营", "part_time"),
    ("Full time & Intern", "Developer", "intern"),
    (None, "Senior Engineer", None),
    (None, None, None),
])
def test_parse_job_type(etype, title, expected):
    assert parse_job_type(etype, title) == expected


def test_description_type_line_is_a_last_resort():
    assert parse_job_type(None, "Rust 工程师", "### 工作性质\n兼职\n") == "part_time"
    assert parse_job_type("全职", "Rust 工程师", "工作性质：兼职") == "full_time"
    assert parse_job_type(None, "前端", "## 工作性质\n- 是否全职：是（也可兼职）") == "part_time"
    assert parse_job_type(None, "Data Scientist", "This is a full-time role.") == "full_time"


@pytest.mark.parametrize("title,expected", [
    ("高级Java工程师", "senior"), ("资深产品经理", "senior"), ("Senior Software Engineer", "senior"),
    ("Sr. Data Scientist", "senior"), ("Staff Engineer", "staff"), ("Principal Engineer", "principal"),
    ("Engineering Manager", "manager"), ("Tech Lead", "lead"), ("Director of Data", "director"),
    ("初级测试工程师", "junior"), ("Junior Developer", "junior"), ("算法专家", "staff"),
    ("数据分析实习生", "intern"), ("Data Scientist II", "mid"), ("Backend Engineer", None), (None, None),
])
def test_parse_seniority(title, expected):
    assert parse_seniority(title) == expected

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
    ("高级Java工程师", "senior"), ("资深产品经理", "manager"), ("Senior Software Engineer", "senior"),
    ("Sr. Data Scientist", "senior"), ("Staff Engineer", "staff"), ("Principal Engineer", "principal"),
    ("Engineering Manager", "manager"), ("Tech Lead", "lead"), ("Director of Data", "director"),
    ("初级测试工程师", "junior"), ("Junior Developer", "junior"), ("算法专家", "staff"),
    ("数据分析实习生", "intern"), ("Data Scientist II", "mid"), ("Backend Engineer", None), (None, None),
])
def test_parse_seniority(title, expected):
    assert parse_seniority(title) == expected


@pytest.mark.parametrize("text", [
    "Senior Software Engineer", "高级Java开发", "Sr. Data Analyst", "Software Engineer II", "Engineer I / II",
    "Head of Data", "实习生-算法", "2027届校招", "Associate Product Manager", "Backend Developer", "数据分析师",
    "Part-time tutor", "Contractor, QA", "Full Stack Engineer", "正式员工", "", "iOS Developer", "Intern (Summer)",
])
def test_union_prefilters_agree_with_the_individual_patterns(text):
    """The one-regex prefilters must match exactly when some individual pattern matches."""
    from jobpipe.normalize import job_type as jt
    assert bool(jt._ANY_SENIORITY.search(text)) == any(p.search(text) for _, p in jt._SENIORITY)
    patterns = (jt._INTERN, jt._CAMPUS, jt._FULL, jt._PART, jt._CONTRACT)
    assert bool(jt._ANY_TYPE.search(text)) == any(p.search(text) for p in patterns)

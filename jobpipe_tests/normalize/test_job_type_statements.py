"""Employment types stated in descriptions, and words that only look like a type."""

from __future__ import annotations

import pytest

from jobpipe.normalize import parse_job_type


@pytest.mark.parametrize(("description", "kind"), [
    ("Responsibilities ...\n\nJob Type: Full-time\nSalary: $80,000 to $100,000 /year", "full_time"),
    ("About us\n\nSchedule\n:Full-time\nJob Posting: Mar 25", "full_time"),
    ("Position Type\n\nRegular Full-Time\n\nApply Now", "full_time"),
    ("STATUS: Full time\nLOCATION: Example Institute", "full_time"),
    ("工作性质\n- 是否全职：✅ 是\n- 是否远程：❌ 否", "full_time"),
    ("工作性质\n- 是否全职：否\n", "part_time"),
    ("- 是否全职：是（也可兼职）", "part_time"),          # both offered
    ("This is a full time, on-site position at our office.", "full_time"),
    ("Must be willing to work on a full-time basis at our headquarters.", "full_time"),
    ("The Example Co is in search of a full-time Data Scientist.", "full_time"),
    ("Data Engineer with R\n-Contract Role in Springfield", "contract"),
    ("Duration: 6+ month contract\nLocation: Springfield", "contract"),
    ("职位描述\n诚聘全职岗位，兼职勿扰！", "full_time"),
])
def test_stated_types(description: str, kind: str) -> None:
    assert parse_job_type(None, "Data Scientist", description) == kind


@pytest.mark.parametrize("description", [
    "Benefits: up to 30 days of paid leave annually to a full-time employee.",
    "Must be pursuing a full-time MBA program with an expected graduation in 2026.",
    "2+ years full time employment or postdoctoral experience.",
    "Experience or internship experience in sales or consulting.",
    "Job Nature\n- Full-time or not: negotiable\n- Remote or not: negotiable",
    "工作性质\n- 是否全职：最好",
    "Part time/summer job/internship experience is a must.",
    "Excellent full time benefits including medical and dental.",
    "熟悉 smart contract 开发，有实习经验优先",
])
def test_bare_mentions_state_no_type(description: str) -> None:
    assert parse_job_type(None, "Data Scientist", description) is None


@pytest.mark.parametrize(("field", "kind"), [("fulltime_permanent", "full_time"), ("FULL_TIME", "full_time"),
                                             ("parttime", "part_time"), ("Regular Full Time (Salary)", "full_time")])
def test_ats_type_codes(field: str, kind: str) -> None:
    assert parse_job_type(field, "Engineer") == kind


@pytest.mark.parametrize(("title", "kind"), [
    ("2027届校招-后端开发", "campus"), ("数据分析（应届）", "campus"), ("商业管培生", "campus"),
    ("应届毕业生优先+底薪5000", None),      # graduates welcome on a regular job
    ("前端开发工程师 [应届/社招均可]", "full_time"), ("接受应届生/销售储备", None),
])
def test_graduate_words(title: str, kind: str | None) -> None:
    assert parse_job_type(None, title) == kind

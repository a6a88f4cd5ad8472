from datetime import date

import pytest

from jobpipe.candidates import parse_resume
from jobpipe.candidates.parse import detect_language, experience_years, headline
from jobpipe.normalize import canonical_skill
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND


def _canon(*names: str) -> set[str]:
    return {canonical_skill(n) for n in names}


def test_chinese_resume_profile():
    p = parse_resume("zh-1", ZH_BACKEND, name="李明")
    assert p.headline == "Python 后端开发工程师"
    assert p.cities == ["Shenzhen"]
    assert p.experience_years == 5.0
    assert p.language == "zh"
    assert _canon("python", "django", "postgresql", "redis", "docker") <= set(p.skills)
    assert len(p.content_hash) == 64


def test_english_resume_profile():
    p = parse_resume("en-1", EN_ML)
    assert p.headline == "Machine Learning Engineer"      # the role line, not the name on line one
    assert p.cities == ["San Francisco"]
    assert p.experience_years == 6.0                      # the stated figure beats the date span
    assert p.language == "en"
    assert _canon("python", "pytorch", "kubernetes", "sql") <= set(p.skills)


def test_city_read_from_prose_only_where_places_are_written():
    p = parse_resume("en-2", EN_FRONTEND)
    assert p.cities == ["Austin"]
    assert p.experience_years == 3.0
    assert _canon("javascript", "react", "typescript") <= set(p.skills)


def test_content_hash_changes_with_the_resume_and_only_then():
    a, b = parse_resume("x", EN_ML), parse_resume("x", EN_ML)
    assert a.content_hash == b.content_hash
    assert parse_resume("x", EN_ML + "\nGo").content_hash != a.content_hash
    assert parse_resume("x", EN_ML, name="Alex").content_hash != a.content_hash


@pytest.mark.parametrize(("text", "years"), [
    ("5+ years of experience in backend development", 5.0),
    ("Over 10 years of professional software experience", 10.0),
    ("Experience: 4 years", 4.0),
    ("三年以上工作经验", 3.0),
    ("十年开发经验", 10.0),
    ("工作年限：7年", 7.0),
    ("2015 - 2019 Acme\n2019 - 2021 Beta", 6.0),
    ("2018.03 - 至今 某公司", float(date.today().year - 2018)),
    ("Java- Experience - 24 months", None),
    ("no dates at all", None),
])
def test_experience_years(text, years):
    assert experience_years(text) == years


def test_language_and_headline_helpers():
    assert detect_language("熟悉 Python、Java 和 MySQL 数据库开发") == "zh"
    assert detect_language("Built Python services") == "en"
    assert detect_language("12345") is None
    assert headline("简历\n王芳\nwang@example.com\n数据分析师", name="王芳") == "数据分析师"


def test_header_segments_and_name_line():
    text = "Maya Rust\nSenior Platform Engineer | Berlin, Germany | maya@example.com\n\nBuilt services in Go."
    p = parse_resume("h", text)
    assert p.headline == "Senior Platform Engineer"
    assert p.cities == ["Berlin"]
    assert canonical_skill("go") in p.skills
    assert canonical_skill("rust") not in p.skills      # from the person's name, not a skill


def test_study_periods_are_not_work_experience():
    text = "教育背景\n2019.09 - 2023.06 某大学 计算机 本科\n实习经历\n2022.07 - 2022.12 某公司 算法实习生"
    assert experience_years(text) is None
    assert experience_years("2016 - 2020 Acme Corp engineer\n2012 - 2016 State University, BSc") == 4.0

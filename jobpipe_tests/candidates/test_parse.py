from datetime import date

import pytest

from jobpipe.candidates import parse_resume
from jobpipe.candidates.parse import detect_language, experience_years, headline, merged_years, work_periods
from jobpipe.normalize import canonical_skill
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND

TODAY = date(2026, 12, 1)


def _canon(*names: str) -> set[str]:
    return {canonical_skill(n) for n in names}


def test_chinese_resume_profile():
    p = parse_resume("zh-1", ZH_BACKEND, today=TODAY)
    assert p.headline == "Python 后端开发工程师" and p.target_titles == ["Python 后端开发工程师"]
    assert p.current_title == "后端开发工程师"
    assert p.cities == ["Shenzhen"]
    assert p.experience_stated == 5.0
    # 2018.07-2020.02 and 2020.03-today: the dates say more than the stated "5年"
    assert p.experience_from_dates == pytest.approx(8.3, abs=0.1) and p.experience_years == p.experience_from_dates
    assert p.language == "zh" and p.languages == ["zh"]
    assert _canon("python", "django", "postgresql", "redis", "docker") <= set(p.skills)
    assert "李明" not in p.resume_text and "139-0000-1234" not in p.resume_text and "liming@" not in p.resume_text


def test_english_resume_profile():
    p = parse_resume("en-1", EN_ML, today=TODAY)
    assert p.headline == "Machine Learning Engineer"      # the role line, not the name on line one
    assert p.cities == ["San Francisco"]
    assert p.experience_stated == 6.0
    assert [(w.start, w.end) for w in p.work_periods] == [("2019-01", None), ("2016-07", "2018-07")]
    assert p.language == "en"
    assert _canon("python", "pytorch", "kubernetes", "sql") <= set(p.skills)
    assert p.seniority == "senior" and p.seniority_source == "experience"


def test_city_read_from_prose_only_where_places_are_written():
    p = parse_resume("en-2", EN_FRONTEND, today=TODAY)
    assert p.cities == ["Austin"] and p.headline == "Frontend Developer"
    assert p.experience_years == 3.0
    assert _canon("javascript", "react", "typescript") <= set(p.skills)


def test_listed_and_mentioned_skills_with_their_evidence():
    text = ("Sam Doe\nBackend Engineer\n\nSKILLS\nPython, Go, Kubernetes\n\nEXPERIENCE\n"
            "2020 - present Acme, Backend Engineer\n- Built billing services in Python on Kubernetes; wrote some Rust.\n")
    p = parse_resume("x", text, today=TODAY)
    ev = {e.skill: e for e in p.skill_evidence}
    py, rust, go = canonical_skill("python"), canonical_skill("rust"), canonical_skill("go")
    assert ev[py].listed and ev[py].mentioned
    assert ev[go].listed and not ev[go].mentioned
    assert ev[rust].mentioned and not ev[rust].listed
    assert ev[py].evidence == ["Python, Go, Kubernetes", "- Built billing services in Python on Kubernetes; wrote some Rust."]
    assert p.skills.index(go) < p.skills.index(rust)        # listed skills first


@pytest.mark.parametrize(("line", "field", "value"), [
    ("期望工作地点：北京/上海/远程", "remote", True),          # remote as one of the places wanted
    ("Location: Remote (US)", "remote", True),
    ("期望城市：上海（不接受远程）", "remote", False),
    ("Location: Berlin\nSummary: led a remote team", "remote", None),
    ("工作性质：全职", "job_types", ["full_time"]),            # the employment wanted, on its own line
    ("Employment type: Contract", "job_types", ["contract"]),
])
def test_preference_lines_in_more_shapes(line, field, value):
    assert getattr(parse_resume("p", f"林一\n{line}", today=TODAY), field) == value


def test_relocation_is_a_wish_and_the_header_city_is_where_the_person_lives():
    text = ("Rahul Verma – Senior Data Engineer\nPune, India | r@example.com\nSKILLS\nPython, Spark\n"
            "Open to relocation to Bengaluru or Hyderabad")
    p = parse_resume("p", text, today=TODAY)
    assert set(p.cities) == {"Bengaluru", "Hyderabad", "Pune"}     # "relocation" holds no "Location:"
    assert p.headline == "Senior Data Engineer"                      # the name's segment is not the title


def test_expected_pay_after_the_current_pay():
    p = parse_resume("p", "Asha Rao\nCurrent CTC: 8 LPA, Expected: 12 LPA", today=TODAY)
    assert (p.expected_salary["min"], p.expected_salary["currency"]) == (1_200_000, "INR")


@pytest.mark.parametrize(("line", "languages"), [
    ("专业技能：熟悉Java；英语CET-6", ["zh", "en"]),      # a level glued to the language
    ("语言：日语N2，英语六级", ["zh", "ja", "en"]),
    ("熟练掌握英语听说读写", ["zh", "en"]),
])
def test_languages_written_together_with_their_level(line, languages):
    assert set(parse_resume("l", f"林一\n{line}", today=TODAY).languages) == set(languages)


@pytest.mark.parametrize(("line", "period"), [
    ("Mar'19 - Jul'21  Engineer, Acme", ("2019-03", "2021-07")),       # two-digit years
    ("Jan’99 – Dec’01  Developer", ("1999-01", "2001-12")),
    ("Since 2017: Engineer at Acme", ("2017-07", None)),                # open, without a dash
    ("Engineer, Acme (since March 2020)", ("2020-03", None)),
    ("自2017年起担任后端工程师", ("2017-07", None)),
    ("2018 onwards: Data Engineer", ("2018-07", None)),
    ("- used Python since 2015 for scripts", None),                     # a skill's age, not a job
])
def test_more_shapes_of_a_work_period(line, period):
    got = [(p.start, p.end) for p in work_periods([line], today=TODAY)]
    assert got == ([period] if period else [])


@pytest.mark.parametrize(("line", "degree"), [
    ("1979年出生，大专学历，会计师。", "associate"),
    ("1962年生，中专学历。", "high_school"),
    ("高中学历，经济师。", "high_school"),
    ("清华大学MBA，高级工程师。", "master"),
    ("1971年出生，本科学历，教授、博士生导师。", "bachelor"),
])
def test_the_degree_of_a_one_paragraph_chinese_bio(line, degree):
    """A bio has no education section: the degree is read from whichever line names one."""
    text = f"周明远，男，\n{line}\n2008年至今任某科技公司副总经理。"
    assert parse_resume("bio", text, today=TODAY).degree == degree


def test_preferences_inferred_from_the_resume():
    text = ("林子涵\n求职意向：大模型算法实习生 / 2027届校招 算法工程师 | 期望城市：上海、北京\n期望薪资：300-400元/天\n"
            "教育背景\n2024.09 - 2027.06 某理工大学 人工智能 硕士（在读）\n英语六级，口语流利\n")
    p = parse_resume("zh", text, today=TODAY)
    assert p.job_types == ["intern", "campus"]
    assert p.cities[:2] == ["Shanghai", "Beijing"]
    assert p.degree == "master"
    assert p.expected_salary["currency"] == "CNY" and p.expected_salary["period"] == "day"
    assert p.expected_salary["annual_min"] == 300 * 250
    assert p.languages == ["zh", "en"]
    assert p.seniority == "intern" and p.work_periods == []     # study periods are not work


def test_remote_preference_and_languages():
    p = parse_resume("r", "Dana Roe\nSenior Go Engineer, open to remote work\nLanguages: English (native), German B2",
                     today=TODAY)
    assert p.remote is True and p.languages == ["en", "de"] and p.seniority == "senior"
    assert parse_resume("r", "Dana Roe\nEngineer, on-site only\n", today=TODAY).remote is False


def test_content_hash_inputs_change_with_the_resume_and_only_then():
    a, b = parse_resume("x", EN_ML, today=TODAY), parse_resume("x", EN_ML, today=TODAY)
    assert a.as_json() == b.as_json()
    assert parse_resume("x", EN_ML + "\nGo", today=TODAY).as_json() != a.as_json()
    # a new phone number is redacted away: nothing derived changes
    assert parse_resume("x", EN_ML.replace("555-0199", "555-0100"), today=TODAY).as_json() == a.as_json()


@pytest.mark.parametrize(("text", "years"), [
    ("5+ years of experience in backend development", 5.0),
    ("Over 10 years of professional software experience", 10.0),
    ("Experience: 4 years", 4.0),
    ("三年以上工作经验", 3.0),
    ("十年开发经验", 10.0),
    ("工作年限：7年", 7.0),
    ("2015 - 2019 Acme\n2019 - 2021 Beta", 6.0),
    ("Jan 2019 - Dec 2020 Acme\nMar 2020 - Jun 2021 Beta (overlapping)", 2.4),
    ("2018.03 - 至今 某公司", round((TODAY.year - 2018) + (TODAY.month - 3) / 12, 1)),
    ("03/2019 - 07/2021 Acme", 2.3),
    ("2019年7月 - 2021年1月 某公司", 1.5),
    ("Java- Experience - 24 months", None),
    ("no dates at all", None),
])
def test_experience_years(text, years):
    assert experience_years(text, today=TODAY) == years


def test_study_periods_are_not_work_experience():
    text = "教育背景\n2019.09 - 2023.06 某大学 计算机 本科\n实习经历\n2022.07 - 2022.12 某公司 算法实习生"
    assert experience_years(text, today=TODAY) == 0.4          # the internship, not the degree
    assert experience_years("2016 - 2020 Acme Corp engineer\n2012 - 2016 State University, BSc", today=TODAY) == 4.0


def test_overlapping_periods_count_once():
    periods = work_periods(["2015 - 2020 Acme", "2017 - 2018 side project at Beta", "2021 - 2022 Gamma"], today=TODAY)
    assert merged_years(periods) == 6.0


def test_language_and_headline_helpers():
    assert detect_language("熟悉 Python、Java 和 MySQL 数据库开发") == "zh"
    assert detect_language("Built Python services") == "en"
    assert detect_language("12345") is None
    assert headline("简历\n[name]\n[email]\n数据分析师") == "数据分析师"


def test_header_segments_and_name_line():
    text = "Maya Rust\nSenior Platform Engineer | Berlin, Germany | maya@example.com\n\nBuilt services in Go."
    p = parse_resume("h", text, today=TODAY)
    assert p.headline == "Senior Platform Engineer"
    assert p.cities == ["Berlin"]
    assert canonical_skill("go") in p.skills
    assert canonical_skill("rust") not in p.skills      # from the person's name, not a skill
    assert "Maya" not in p.resume_text


def test_the_parser_version_covers_the_code_that_builds_profiles_and_embedding_texts():
    """Derived from the code, so a change of the embedding text cannot ship without re-profiling."""
    from jobpipe.candidates import parse as parse_module
    from jobpipe.candidates.vector_text import embedding_text
    from jobpipe.codeversion import PACKAGE

    files = {p for pattern in parse_module._PROFILE_CODE for p in PACKAGE.glob(pattern)}
    assert {PACKAGE / "candidates" / name for name in ("parse.py", "redact.py", "vector_text.py")} <= files
    assert embedding_text.__code__.co_filename in {str(p) for p in files}
    version = parse_module.parser_version()
    assert isinstance(version, int) and 0 <= version < 2 ** 31      # fits candidates.parser_version (integer)

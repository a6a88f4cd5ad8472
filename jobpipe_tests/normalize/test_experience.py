from __future__ import annotations

import pytest

from jobpipe.normalize.experience import degrees_mentioned, parse_degree, parse_experience


@pytest.mark.parametrize("text,expected", [
    ("3-5年", (3, 5)), ("1-3年", (1, 3)), ("5-10年", (5, 10)), ("10年以上", (10, None)), ("1年以下", (0, 1)),
    ("3年以上工作经验", (3, None)), ("经验不限", (0, None)), ("不限", (0, None)), ("应届毕业生", (0, 0)),
    ("5+ years of experience in backend development", (5, None)),
    ("At least 3 years of experience with Python", (3, None)),
    ("2-4 years experience", (2, 4)), ("三年以上开发经验", (3, None)),
    ("", (None, None)), (None, (None, None)), ("great team, 100 people", (None, None)),
])
def test_parse_experience(text, expected):
    assert parse_experience(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("本科", "bachelor"), ("大专", "associate"), ("硕士", "master"), ("博士", "phd"), ("本科及以上学历", "bachelor"),
    ("Bachelor's degree in Computer Science", "bachelor"), ("BS/MS in Computer Science or equivalent", "bachelor"),
    ("PhD in Machine Learning", "phd"), ("Master's degree required", "master"), ("学历不限", None), ("", None),
])
def test_parse_degree(text, expected):
    assert parse_degree(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("1990年毕业，大学学历，工程师", ["bachelor"]),
    ("大学文化程度", ["bachelor"]),
    ("北京某大学EMBA，高级经济师", ["master"]),
    ("2015年获PhD学位", ["phd"]),
    ("本科学历，教授、博士生导师", ["bachelor"]),          # supervises doctoral students: no degree by that
    ("学士，硕士研究生导师", ["bachelor"]),
    ("历任财务处成本科科长", []),                          # a cost department, not an undergraduate degree
    ("BA分析师", []),                                      # a business analyst, not a BA
])
def test_degrees_held_in_a_chinese_bio(text, expected):
    assert degrees_mentioned(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("B.E. Information Technology, Pune University", ["bachelor"]),
    ("B.Tech in CSE, 2016", ["bachelor"]),
    ("M.Tech (CSE), 2019; B.Tech 2017", ["master", "bachelor"]),
    ("MCA, 2015", ["master"]),
    ("B.Com 2014", ["bachelor"]),
    ("M.E. Mechanical", ["master"]),
    ("Msc in Statistics", ["master"]),
    ("HSC, Maharashtra board", ["high_school"]),
    ("MS SQL Server - Experience - 6 months", []),        # Microsoft's, not a master's
    ("MS Office, MS Excel", []),
    ("p99 latency under 10 ms", []),                       # a unit
    ("You will be working with a small team", []),         # the verb
])
def test_degree_abbreviations_in_capitals_and_with_dots(text, expected):
    assert degrees_mentioned(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Master degree or you will be fine", "master"),
    ("Qualifications: BS, MS or PhD with academic or industry experience", "bachelor"),
    ("Requirements: Bachelor's and 6+ years of relevant experience", "bachelor"),
])
def test_parse_degree_reads_the_requirement_not_a_verb(text, expected):
    assert parse_degree(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("['无工作经验']", (0.0, None)), ("不需要工作经验", (0.0, None)), ("零经验可培训", (0.0, None)),
    ("有无经验均可", (0.0, None)), ("No prior experience required", (0.0, None)),
    ("岗位无工作经验要求，应届生或者已有工作经验者均可", (0.0, None)),
    ("无相关经验者勿扰", (None, None)),                   # those without experience need not apply
    ("3年以上，无经验者免谈", (3.0, None)),
])
def test_no_experience_required_in_its_spellings(text, expected):
    assert parse_experience(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("3+ years of software development experience", (3.0, None)),      # experience named 40 characters on
    ("0-2 years of relevant and related experience", (0.0, 2.0)),
    ("EXP: 10+ Years", (10.0, None)),
    ("半年以上前端开发经验", (0.5, None)),
    ("试用期半年，工作地点上海", (None, None)),                            # probation, not experience
])
def test_experience_stated_with_more_words_between(text, expected):
    assert parse_experience(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("bachelor_degree", "bachelor"), ("masters_degree", "master"), ("high_school", "high_school"),
    ("vocational", "high_school"), ("['中技']", "high_school"), ("Unspecified", None),
])
def test_an_api_enumeration_value_is_a_degree(text, expected):
    assert parse_degree(text) == expected


def test_fast_nfkc_equals_unicodedata_nfkc() -> None:
    """The fullwidth shortcut must give exactly NFKC, also next to combining marks and compat characters."""
    import unicodedata

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from jobpipe.normalize.experience import _nfkc

    alphabet = st.sampled_from(list("ＡＺａｚ０９～，：（）；！．／｜？　Aa1 -年以上本科経⼒､①ﬁ①\u0301\u0308\u3099\u309aｶﾞ가\u1161é"))

    @settings(max_examples=400, deadline=None)
    @given(st.text(alphabet=alphabet, max_size=30))
    def check(text: str) -> None:
        assert _nfkc(text) == unicodedata.normalize("NFKC", text)

    check()
    assert _nfkc("３－５年，本科") == "3-5年,本科"


@pytest.mark.parametrize(("text", "expected"), [
    ("1.本科以上学历； 2.2年以上销售工作经验", (2.0, None)),                 # item 2 asks 2 years, not 2.2
    ("任职要求\n1.3年以上商业数据分析相关工作经验；\n- 熟练使用 SQL", (3.0, None)),
    ("1.本科 2.5年左右 IT 行业项目管理经验", (5.0, None)),
    ("1.5年以上开发经验", (1.5, None)),                                      # alone it is a year and a half
    ("3年以上音乐AI算法研发经历", (3.0, None)),                              # 经历 is experience too
    ("Minimum of 6+ years in a pharmaceutical setting", (6.0, None)),        # a minimum asked for
    ("1-2 years of academic or professional analytical or modeling experience", (1.0, 2.0)),
    ("可接受应届毕业生，18-28岁", (0.0, None)),                              # new graduates welcome
    ("应届毕业生", (0.0, 0.0)),                                              # a position for them
])
def test_experience_in_lists_and_other_words(text, expected):
    assert parse_experience(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("You have an advanced degree in a quantitative discipline", "master"),
    ("PhD with minimum of 7-10 years of experience", "phd"),
    ("本科985计算机相关专业，5-8年工作经验", "bachelor"),                    # 专业 is degree wording
    ("统招本科或专科院校，大四实习生更佳", "associate"),                      # the lower of the two
])
def test_degree_wording_in_more_shapes(text, expected):
    assert parse_degree(text) == expected

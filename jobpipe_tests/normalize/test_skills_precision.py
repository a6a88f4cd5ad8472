"""Skills a posting names, not words that merely contain or sit next to a skill's name."""

from __future__ import annotations

import pytest

from jobpipe.normalize.skills import extract_skills, job_skills, skill_text


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("负责推荐模型的特征向量化与召回", "Quantitative Analysis"),
        ("绩效可量化，目标清晰", "Quantitative Analysis"),
        ("Benefits: a home-office stipend and a gym budget", "Microsoft Office"),
        ("Our office in Berlin is open to hybrid work", "Microsoft Office"),
        ("Run A/B testing on the onboarding funnel", "Testing"),
        ("We are a distributed team across five time zones", "Distributed Systems"),
        ("Matching 401k and social security contributions", "Security"),
        ("PS：请附上作品集", "Photoshop"),
        ("Grow the user base; growth in revenue is expected", "Growth"),
        ("熟悉公司战略合作流程", "Business Strategy"),
        ("熟悉Spring Cloud微服务架构", "Cloud Computing"),          # Spring's framework, not cloud computing
    ],
)
def test_words_that_contain_or_resemble_a_skill_name_are_not_it(text: str, absent: str) -> None:
    assert absent not in job_skills("Engineer", text)


@pytest.mark.parametrize(
    ("text", "present"),
    [
        ("熟练使用Office系列与Excel", "Microsoft Office"),
        ("熟悉量化交易与量化策略研究", "Quantitative Analysis"),
        ("Experience with microsoft office and PowerPoint", "Microsoft Office"),
        ("Write unit and integration testing for the API", "Testing"),
        ("设计分布式系统，保证高可用", "Distributed Systems"),
        ("Spring Cloud services on AWS cloud infrastructure", "Cloud Computing"),
    ],
)
def test_the_skill_itself_is_still_found(text: str, present: str) -> None:
    assert present in job_skills("Engineer", text)


def test_a_phrase_that_means_something_else_does_not_hide_a_real_mention() -> None:
    text = "Run A/B testing with the growth team. You own the testing strategy of our mobile apps."
    assert "Testing" in extract_skills(text)


def test_teams_the_job_works_with_are_not_its_skills() -> None:
    text = ("Partner with stakeholders in Partner Programs, Product Management, Engineering, Sales, and Marketing.\n"
            "协调产品、研发、测试、运营等多方角色，保障信息同步。\n"
            "Build dashboards in Python and SQL.")
    found = job_skills("Data Analyst", text)
    assert {"Python", "SQL"} <= set(found)
    assert not {"Product Management", "Sales", "Marketing", "Testing", "Product Operations"} & set(found)


def test_a_section_about_the_company_is_not_the_job() -> None:
    text = ("公司介绍\n本公司是一家金融科技公司，业务覆盖人工智能、大数据与云计算，在 Github 开源全部代码。\n"
            "在这里，你将参与 Rust 节点开发。\n"
            "岗位职责\n- 负责 Go 后端服务开发\n")
    found = job_skills("后端工程师", text)
    assert {"Go", "Rust"} <= set(found)   # the job's, and the company section's sentence to the reader
    assert not {"Artificial Intelligence", "Big Data", "Cloud Computing", "Git"} & set(found)


def test_boilerplate_sentences_go_but_the_rest_of_their_line_stays() -> None:
    line = ("You will build models in Python and Spark. We are an equal opportunity employer and do not "
            "discriminate in recruiting, hiring or promotion.")
    text = skill_text(line)
    assert "Python and Spark" in text
    assert "recruiting" not in text


def test_a_job_function_counts_where_it_is_asked_for_or_in_the_title() -> None:
    assert "Marketing" not in job_skills("Data Scientist", "Support our marketing staff with weekly reports in SQL.")
    assert "Marketing" in job_skills("Data Scientist", "3+ years of experience in marketing analytics and SQL.")
    assert "Marketing" in job_skills("Marketing Manager", "Own the weekly reports in SQL.")
    assert "Human Resources" not in job_skills("Engineer", "Any emails from the Amplitude recruiting team come from us.")
    assert "Human Resources" in job_skills("招聘专员", "具备互联网行业招聘经验，熟悉人力资源管理流程")

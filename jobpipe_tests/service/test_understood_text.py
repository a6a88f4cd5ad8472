"""The MCP search text says what the query states and which of it became filters."""

from __future__ import annotations

from jobpipe.search.understand import understand
from jobpipe.service.mcp_server import format_search


def _body(query: str, taken: list[str]) -> dict:
    return {"results": [], "understood": understand(query).model_dump(), "auto_filters": taken}


def test_understood_line_names_values_spans_and_what_was_applied():
    text = format_search(_body("上海 3年以上 Java 30k以上", ["city", "salary_min"]), "q")
    assert "city=Shanghai ('上海') [applied]" in text
    assert "salary_min=30,000 CNY/month ('30k以上') [applied]" in text
    assert "skills=Java" in text and "pass auto_filters" not in text


def test_understood_line_suggests_auto_filters_when_nothing_was_applied():
    text = format_search(_body("深圳的 AI Agent 实习", []), "q")
    assert "job_type=intern ('实习')" in text and "[applied]" not in text and "auto_filters=true" in text
    assert "preferred in the ranking, not required" in text


def test_skills_alone_are_named_without_the_filter_hint():
    text = format_search(_body("backend", []), "q")
    assert "skills=Backend" in text and "auto_filters" not in text


def test_no_line_when_the_query_states_nothing():
    assert "states" not in format_search(_body("nice people wanted", []), "q")


def test_understood_line_says_what_the_query_rules_out():
    text = format_search(_body("不要外包 上海 测试", []), "q")
    assert "not job_type=contract ('不要外包') [ruled out" in text
    assert "city=Shanghai" in text


def test_understood_line_names_every_level_the_ranking_prefers():
    text = format_search(_body("lead or principal data scientist", []), "q")
    assert "seniority=lead or staff or principal ('principal')" in text
    assert "seniority=senior ('senior')" in format_search(_body("senior data scientist", []), "q")

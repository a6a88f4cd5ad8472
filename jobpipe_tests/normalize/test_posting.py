"""normalize_posting end to end, and the JSON shape the CLI prints."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from jobpipe.hashing import content_hash
from jobpipe.models import PostingFields
from jobpipe.normalize import normalize_posting, posting_to_dict, validate_postings
from jobpipe.normalize.posting import clean_company

FETCHED = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)


def _zh_fields(**over):
    base = dict(
        title="AI Agent 开发实习生", company="某某科技有限公司", location="深圳/远程", salary_text="300-400元/天",
        employment_type="全职", description="## 职责\n- 基于大模型开发 Agent\n- 熟悉 Python、LangChain\n\n## 要求\n本科及以上学历，经验不限",
        url="https://example.com/jobs/1", posted_at="3天前",
    )
    base.update(over)
    return PostingFields(**base)


def test_chinese_posting():
    p = normalize_posting(_zh_fields(), source="demo", external_id="1", fetched_at=FETCHED, raw_id=7, fetch_id=3)
    assert p.title == "AI Agent 开发实习生"
    assert p.cities == ["Shenzhen"] and p.country == "CN" and p.remote == "remote"
    assert p.job_type == "intern" and p.seniority == "intern"
    assert (p.salary.min, p.salary.max, p.salary.currency, p.salary.period) == (300, 400, "CNY", "day")
    assert (p.salary_annual_min, p.salary_annual_max) == (75000, 100000)
    assert {"LLM", "AI Agent", "Python", "LangChain"} <= set(p.skills)
    assert p.language == "zh" and p.degree == "bachelor" and (p.experience_min, p.experience_max) == (0, None)
    assert p.posted_at == datetime(2026, 3, 6, 16, tzinfo=timezone.utc)   # "3天前": the start of that Beijing day
    assert "##" not in p.description_text and "- 熟悉 Python、LangChain" in p.description_text
    assert p.raw_id == 7 and p.fetch_id == 3
    assert p.content_hash == content_hash(p) and len(p.content_hash) == 64


def test_english_posting_with_structured_salary_and_glassdoor_company():
    fields = PostingFields(
        title="Senior Data Scientist", company="Acme Analytics\n3.8", location="San Francisco, CA",
        salary=None, salary_text="$120K-$160K (Glassdoor est.)", description="<p>5+ years of experience with Python, SQL and Spark.</p>",
        posted_at="2026-03-01T00:00:00Z",
    )
    p = normalize_posting(fields, source="gd", external_id="a", fetched_at=FETCHED)
    assert p.company == "Acme Analytics"
    assert p.cities == ["San Francisco"] and p.country == "US" and p.remote is None
    assert (p.salary.min, p.salary.max, p.salary.currency, p.salary.period) == (120000, 160000, "USD", "year")
    assert p.seniority == "senior" and p.experience_min == 5 and p.language == "en"
    assert {"Python", "SQL", "Spark"} <= set(p.skills)


def test_title_says_remote():
    p = normalize_posting(PostingFields(title="[远程] Rust 工程师", location=None), source="s", external_id="r", fetched_at=FETCHED)
    assert p.remote == "remote"


def test_content_hash_ignores_url_and_dates():
    a = normalize_posting(_zh_fields(), source="s", external_id="1", fetched_at=FETCHED)
    b = normalize_posting(_zh_fields(url="https://example.com/other", posted_at="昨天"), source="s", external_id="1", fetched_at=FETCHED)
    c = normalize_posting(_zh_fields(title="后端开发实习生"), source="s", external_id="1", fetched_at=FETCHED)
    assert a.content_hash == b.content_hash != c.content_hash


def test_clean_company():
    assert clean_company("Acme Inc\n4.1") == "Acme Inc"
    assert clean_company("  Foo\u200b Bar  ") == "Foo Bar"
    assert clean_company(None) is None and clean_company("  ") is None


def test_posting_to_dict_is_json_ready_with_salary_block():
    p = normalize_posting(_zh_fields(salary_text="15-25K·14薪"), source="demo", external_id="1", fetched_at=FETCHED)
    d = posting_to_dict(p)
    for key in ("source", "external_id", "title", "company", "cities", "country", "remote", "job_type", "skills", "salary",
                "description_text", "posted_at", "content_hash", "salary_annual_min", "degree", "language"):
        assert key in d
    assert d["salary"] == {"min": 15000, "max": 25000, "currency": "CNY", "period": "month", "months_per_year": 14,
                           "negotiable": False}
    assert d["salary_annual_max"] == 350000
    assert d["posted_at"] == "2026-03-06T16:00:00+00:00" and d["valid_through"] is None
    line = json.dumps(d, ensure_ascii=False)
    assert json.loads(line)["cities"] == ["Shenzhen"]


def test_unknown_salary_is_nulls():
    p = normalize_posting(PostingFields(title="Engineer"), source="s", external_id="x", fetched_at=FETCHED)
    assert posting_to_dict(p)["salary"] == {"min": None, "max": None, "currency": None, "period": None,
                                           "months_per_year": None, "negotiable": False}


def test_normalized_postings_pass_the_schema():
    ps = [normalize_posting(_zh_fields(), source="s", external_id=str(i), fetched_at=FETCHED) for i in range(3)]
    assert len(validate_postings(ps, now=FETCHED).valid) == 3


def test_salary_only_in_the_title():
    p = normalize_posting(PostingFields(title="[香港] Web3 公司诚聘 社群运营 薪水 2000-3000U", location="香港"),
                          source="s", external_id="t", fetched_at=FETCHED)
    assert (p.salary.min, p.salary.max, p.salary.currency, p.salary.period) == (2000, 3000, "USDT", "month")
    q = normalize_posting(PostingFields(title="2027届校招 后端开发 (3-5人)"), source="s", external_id="u", fetched_at=FETCHED)
    assert q.salary.min is None and q.salary.max is None


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_text = st.one_of(st.none(), st.text(max_size=40), st.sampled_from(["北京/远程", "15-25K·14薪", "<p>Go &amp; k8s</p>", "昨天",
                                                                    "Remote - US", "全/兼职", "$50K-$80K", "&lt;li&gt;x"]))


@settings(max_examples=30, deadline=None)
@given(title=_text, company=_text, location=_text, salary_text=_text, employment=_text, description=_text, posted=_text,
       extra=st.lists(st.text(max_size=10), max_size=3))
def test_any_fields_normalize_without_crashing(title, company, location, salary_text, employment, description, posted, extra):
    p = normalize_posting(PostingFields(title=title, company=company, location=location, locations=extra, salary_text=salary_text,
                                        employment_type=employment, description=description, posted_at=posted),
                          source="s", external_id="x", fetched_at=FETCHED)
    assert isinstance(p.description_text, str) and len(p.content_hash) == 64
    result = validate_postings([p], now=FETCHED)
    assert len(result.valid) + len(result.rejected) == 1
    if p.title.strip():
        assert result.valid, result.rejected[0].failed_checks   # only an empty title may fail the schema


def test_labelled_pay_in_the_description_is_the_salary_when_no_field_has_one():
    from datetime import datetime, timezone

    now = datetime(2026, 11, 1, tzinfo=timezone.utc)
    zh = normalize_posting(PostingFields(title="后端工程师", location="上海",
                                         description="<p>负责开发。</p><p>薪资范围：39-65K</p><p>六险一金</p>"),
                           source="s", external_id="1", fetched_at=now)
    assert (zh.salary.min, zh.salary.max, zh.salary.currency, zh.salary.period) == (39000, 65000, "CNY", "month")
    en = normalize_posting(PostingFields(
        title="Data Engineer", location="San Francisco, CA",
        description="<p>We offer a $2,000 yearly learning budget.</p><p>The pay range for this role is $165K–$210K.</p>"),
        source="s", external_id="2", fetched_at=now)
    assert (en.salary.min, en.salary.max, en.salary.currency, en.salary.period) == (165000, 210000, "USD", "year")


def test_unlabelled_amounts_in_the_description_are_not_a_salary():
    from datetime import datetime, timezone

    now = datetime(2026, 11, 1, tzinfo=timezone.utc)
    p = normalize_posting(PostingFields(title="Engineer", location="Berlin",
                                        description="<p>A $2,000 learning budget. Team of 20-30 people. 3-5年经验</p>"),
                          source="s", external_id="3", fetched_at=now)
    assert p.salary.min is None and p.salary.max is None


def _structured_pay_fields(description: str, **salary) -> PostingFields:
    return PostingFields(
        title="Research Intern", company="Lumen", location="San Francisco, CA", description=description,
        salary={"min": 50.0, "max": 65.0, "currency": "USD", "period": None, **salary},
        url="https://example.com/jobs/2",
    )


def test_a_periodless_structured_range_takes_the_period_the_description_states_for_the_same_amounts():
    hourly = normalize_posting(_structured_pay_fields("The pay range for this role is $50 - $65 an hour."),
                               source="demo", external_id="2", fetched_at=FETCHED)
    assert (hourly.salary.min, hourly.salary.max, hourly.salary.period) == (50, 65, "hour")
    assert (hourly.salary_annual_min, hourly.salary_annual_max) == (50 * 2080, 65 * 2080)
    # other amounts in the description say nothing about this range's period
    other = normalize_posting(_structured_pay_fields("Our interns earned $40 - $45 an hour last year."),
                              source="demo", external_id="3", fetched_at=FETCHED)
    assert other.salary.period == "month"
    # a period the source's own field states stays
    stated = normalize_posting(_structured_pay_fields("The pay range is $50 - $65 an hour.", period="month"),
                               source="demo", external_id="4", fetched_at=FETCHED)
    assert stated.salary.period == "month"

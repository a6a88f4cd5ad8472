"""Explicit preferences: validation, how they win over inferred ones, and one filter in SQL and in memory."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jobpipe.candidates import CandidatePreferences, parse_resume
from jobpipe.candidates.matching import JobFeatures
from jobpipe.candidates.preferences import HardFilter, effective
from jobpipe.candidates.scoring import JobBatch
from jobpipe.search.types import FilterError
from jobpipe_tests.candidates import world


@pytest.mark.parametrize(("data", "message"), [
    ({"citys": ["x"]}, "citys: unknown field"),
    ({"remote": "yes please"}, "remote: Input should be a valid boolean"),
    ({"job_types": ["fulltime"]}, "job_types.0: Input should be"),
    ({"salary_min": -1}, "salary_min: Input should be greater than or equal to 0"),
    ({"salary_min": 1, "currency": "XYZ"}, "currency: unknown currency 'XYZ'"),
    ({"cities": ["x" * 65]}, "cities: Value error, cities[0] is longer than 64"),
    ({"skills": ["\u200b"]}, "skills"),
])
def test_invalid_preferences_name_the_field(data, message):
    with pytest.raises(FilterError) as info:
        CandidatePreferences.parse(data)
    assert message.split(": Value error, ")[-1] in str(info.value)


def test_a_single_value_is_a_list_of_one():
    prefs = CandidatePreferences.parse({"cities": "上海", "job_types": "intern", "skills": "Go",
                                        "exclude_companies": "Acme"})
    assert (prefs.cities, prefs.job_types, prefs.skills, prefs.exclude_companies) == (
        ("上海",), ("intern",), ("Go",), ("Acme",))
    with pytest.raises(FilterError, match="job_types.0: Input should be"):
        CandidatePreferences.parse({"job_types": "fulltime"})      # still validated as one


def test_explicit_values_win_over_inferred_ones():
    profile = parse_resume("x", "Dana Roe\nBackend Engineer\nLocation: Berlin, Germany\nSkills: Python, Go\n"
                                "Expected salary: EUR 70,000 per year")
    assert profile.cities == ["Berlin"]
    inferred = effective(profile, CandidatePreferences())
    assert inferred.cities == ("Berlin",) and inferred.source["cities"] == "inferred"
    assert inferred.salary_floor == 70000 and inferred.currency == "EUR"
    explicit = effective(profile, CandidatePreferences.parse({"cities": ["上海", "北京"], "skills": ["rust"],
                                                               "remote": False, "salary_min": 500000,
                                                               "currency": "CNY"}))
    assert explicit.cities == ("Shanghai", "Beijing") and explicit.skills == ("Rust",)
    assert explicit.remote is False and (explicit.salary_floor, explicit.currency) == (500000, "CNY")
    assert {k: explicit.source[k] for k in ("cities", "skills", "remote", "salary_min")} == dict.fromkeys(
        ("cities", "skills", "remote", "salary_min"), "explicit")


_PREFS = st.fixed_dictionaries({}, optional={
    "cities": st.lists(st.sampled_from(["Beijing", "北京", "上海", "Berlin", "London", "Atlantis", "san francisco"]),
                       max_size=3, unique=True),
    "remote": st.booleans(),
    "job_types": st.lists(st.sampled_from(["full_time", "intern", "contract", "campus"]), max_size=2, unique=True),
    "salary_min": st.sampled_from([50000.5, 110000.5, 400000.5, 1500000.5]),
    "currency": st.sampled_from(["USD", "CNY", "EUR"]),
})


def test_the_filter_means_the_same_in_sql_and_in_memory(db):
    postings = world.random_postings(150, seed=21)
    postings += [world.posting("atl", "Backend Engineer", skills=["Python"], cities=[], company="Sea Co",
                               description="Backend Engineer in Atlantis")]
    postings[0].location_raw = "Atlantis Harbour"
    world.load(db, postings)
    features = JobFeatures(db)
    features.prefetch_open()
    batch = JobBatch(list(features.cache.values()))
    checked = []

    @settings(max_examples=80, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(prefs=_PREFS, excluded=st.lists(st.sampled_from(sorted(features.cache)), max_size=3))
    def check(prefs, excluded):
        hard = HardFilter.of(CandidatePreferences.parse(prefs), excluded)
        fsql = hard.sql()
        in_sql = {r[0] for r in db.execute(f"SELECT j.job_id FROM jobs j WHERE {fsql.where}", fsql.params)}
        on_terms = {r[0] for r in db.execute(f"SELECT j.job_id FROM job_terms j WHERE {fsql.where}", fsql.params)}
        in_memory = set(batch.job_ids[hard.mask(batch)].tolist())
        assert in_sql == on_terms == in_memory, (prefs, in_sql ^ in_memory)
        checked.append(len(in_sql))

    check()
    assert len(set(checked)) > 10        # the cases really filtered differently

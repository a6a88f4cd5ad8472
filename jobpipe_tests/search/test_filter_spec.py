"""SearchFilters is the one filter spec: every interface takes exactly its fields, validated once."""

from __future__ import annotations

from datetime import date

import pytest

from jobpipe.cli import build_parser
from jobpipe.normalize.job_type import JOB_TYPES
from jobpipe.search.types import FilterError, SearchFilters
from jobpipe.service.schemas import MatchRequest, SearchArguments, SearchRequest

FIELDS = set(SearchFilters.model_fields)


def _cli(*argv: str):
    return build_parser().parse_args(["search", "q", *argv])


def test_every_interface_takes_every_filter():
    assert FIELDS <= set(SearchRequest.model_fields) and FIELDS <= set(MatchRequest.model_fields)
    assert FIELDS <= set(SearchArguments.model_json_schema()["properties"])       # the MCP tool's parameters
    assert FIELDS <= set(vars(_cli()))                                              # the CLI's flags


def test_the_job_type_vocabulary_is_the_normalizers():
    schema = SearchFilters.model_json_schema()["properties"]["job_type"]
    assert [s for s in schema["anyOf"] if "enum" in s][0]["enum"] == list(JOB_TYPES)
    assert _cli("--job-type", "campus").job_type == "campus"
    with pytest.raises(SystemExit):
        _cli("--job-type", "gig")


def test_cli_flags_build_the_same_filters():
    from jobpipe.cli import _filters

    args = _cli("--city", "深圳", "--no-remote", "--skill", "Go", "--skill", "SQL", "--salary-min", "300000",
                "--currency", "cny", "--posted-within-days", "7", "--include-closed")
    assert _filters(args) == SearchFilters(city="深圳", remote=False, skills=("Go", "SQL"), salary_min=300000,
                                           currency="CNY", posted_within_days=7, include_closed=True)
    assert _filters(_cli("--remote")).remote is True and _filters(_cli()).remote is None
    with pytest.raises(FilterError, match="unknown currency 'ZZZ'"):
        _filters(_cli("--salary-min", "1", "--currency", "zzz"))


def test_a_posted_window_is_two_dates_in_order():
    from jobpipe.cli import _filters

    window = _filters(_cli("--posted-from", "2026-11-01", "--posted-until", "2026-11-30"))
    assert window == SearchFilters.parse({"posted_from": "2026-11-01", "posted_until": "2026-11-30"})
    assert window.posted_from == date(2026, 11, 1) and window.posted_until == date(2026, 11, 30)
    with pytest.raises(FilterError, match="posted_from 2026-12-01 is after posted_until 2026-11-01"):
        SearchFilters.parse({"posted_from": "2026-12-01", "posted_until": "2026-11-01"})
    with pytest.raises(FilterError, match="posted_until:"):
        SearchFilters.parse({"posted_until": "20261-01-01"})
    with pytest.raises(SystemExit):
        _cli("--posted-from", "last week")


def test_parse_names_every_mistake_and_the_known_fields():
    with pytest.raises(FilterError) as err:
        SearchFilters.parse({"citty": "北京", "job_type": "gig", "posted_within_days": 0})
    message = str(err.value)
    assert "citty: unknown field (known: city, job_type" in message
    assert "job_type: Input should be 'full_time'" in message and "posted_within_days:" in message
    assert len(err.value.errors) == 3


def test_remote_is_documented_as_the_code_filters_it():
    # true means fully remote only: hybrid jobs are not returned (jobpipe.search.filters)
    assert "hybrid and on-site excluded" in SearchFilters.model_fields["remote"].description
    # and remote must be stated, not inferred from a benefits line (field_origins)
    assert "only among benefits does not count" in SearchFilters.model_fields["remote"].description


def test_cli_top_k_is_the_services_range(capsys):
    from jobpipe.service.limits import MAX_TOP_K

    assert _cli("--top-k", str(MAX_TOP_K)).top_k == MAX_TOP_K
    for bad in ("0", str(MAX_TOP_K + 1), "ten"):
        with pytest.raises(SystemExit):
            _cli("--top-k", bad)
        assert "--top-k" in capsys.readouterr().err   # an argparse message, not a traceback
    with pytest.raises(SystemExit):
        build_parser().parse_args(["candidates", "matches", "c1", "--top-k", "0"])


def test_one_skill_is_a_list_of_one():
    assert SearchFilters.parse({"skills": "Go"}) == SearchFilters.parse({"skills": ["Go"]})
    assert SearchRequest.model_validate({"query": "q", "skills": "Go"}).skills == ("Go",)

"""Schemathesis against the OpenAPI document: no generated request, valid or not, gets a 5xx."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from jobpipe.service.api import create_app
from jobpipe.service.settings import ServiceSettings
from jobpipe_tests.service.support import HashEmbedder

MAX_EXAMPLES = 100


@pytest.fixture(scope="module")
def api_schema(database, seeded):
    app = create_app(ServiceSettings(), database_url=database, embedder=HashEmbedder())
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    yield schema
    app.state.context.close()


def _fuzz(operation, mode, statuses: set[int]) -> int:
    """Run generated requests against one operation; record their statuses; return how many ran."""
    cases = 0

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        nonlocal cases
        cases += 1
        response = case.call()
        statuses.add(response.status_code)
        assert response.status_code < 500, (case.as_curl_command() if hasattr(case, "as_curl_command")
                                            else case, response.text[:500])

    run()
    return cases


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_server_errors_for_generated_requests(api_schema, mode, report_figure):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert {op.path for op in operations} >= {"/search", "/jobs/{job_id}", "/match", "/health"}
    statuses: dict[str, set[int]] = {}
    cases = sum(_fuzz(operation, mode, statuses.setdefault(operation.path, set())) for operation in operations)
    # The fuzzer really reached the endpoints: successes for valid input, 422s for invalid input.
    if mode == GenerationMode.POSITIVE:
        assert 200 in statuses["/search"] and 200 in statuses["/health"]
    else:
        assert 422 in statuses["/search"] and 422 in statuses["/match"]
    report_figure(f"schemathesis ({mode.value}): {cases} generated requests over {len(operations)} operations, "
                  f"5xx = 0 (statuses seen: {sorted(set().union(*statuses.values()))})")

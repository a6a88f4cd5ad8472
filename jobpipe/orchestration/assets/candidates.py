"""Candidate (resume) assets: the drop folder -> profiles -> vectors -> matches.

Thin wiring: each asset calls one stage of ``jobpipe.pipeline.candidates``. Metadata carries
counts only: resumes are personal data, and neither ids nor file names reach Dagster.
"""

import time

from dagster import AssetExecutionContext, MaterializeResult, asset

from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.assets.vectors import job_embeddings, vector_index
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS, nightly
from jobpipe.orchestration.outcomes import stage_failure, with_seconds
from jobpipe.orchestration.resources import EmbedderResource, PipelineSettingsResource, PostgresResource
from jobpipe.pipeline.candidates import embed_candidates, match_candidates, profile_candidates
from jobpipe.pipeline.errors import StageError

GROUP = "candidates"


@asset(group_name=GROUP, kinds={"python", "postgres"}, automation_condition=nightly(), owners=OWNERS)
def candidate_profiles(context: AssetExecutionContext, postgres: PostgresResource,
                       settings: PipelineSettingsResource) -> MaterializeResult:
    """Read the drop folder (JOBPIPE_CANDIDATES): new and edited resumes are redacted and profiled,
    removed ones deleted, unreadable ones quarantined with the reason.

    Profiles use the postings' own normalizers and vocabulary (skills, cities, seniority, job
    types, salary), which is what makes a candidate and a job comparable field by field.
    """
    started = time.monotonic()
    with postgres.connect() as conn:
        try:
            outcome = profile_candidates(conn, settings.candidates_path, run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=with_seconds(outcome, started))


@asset(
    deps=[candidate_profiles, job_embeddings],
    group_name=GROUP,
    kinds={"python", "pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    owners=OWNERS,
)
def candidate_vectors(context: AssetExecutionContext, postgres: PostgresResource,
                      embedder: EmbedderResource) -> MaterializeResult:
    """Embed exactly the candidates whose embedding text changed, with the jobs' model (vectors are
    only comparable within one model)."""
    started = time.monotonic()
    with postgres.connect() as conn:
        try:
            outcome = embed_candidates(conn, embedder.get(), run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=with_seconds(outcome, started))


@asset(
    deps=[candidate_vectors, job_embeddings, vector_index],
    group_name=GROUP,
    kinds={"python", "postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    owners=OWNERS,
)
def candidate_matches(context: AssetExecutionContext, postgres: PostgresResource,
                      settings: PipelineSettingsResource) -> MaterializeResult:
    """Each candidate's top open jobs with a 0-100 score and its parts, recomputing only what changed:
    candidates whose profile or preferences changed, and the entries of the jobs that changed."""
    started = time.monotonic()
    with postgres.connect() as conn:
        try:
            outcome = match_candidates(conn, top_n=settings.matches_top_n, reserve=settings.matches_reserve,
                                       run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=with_seconds(outcome, started))

"""Candidate (resume) assets: profiles -> vectors -> matches against open jobs.

Thin wiring: each asset calls one stage of ``jobpipe.pipeline.candidates``.
"""

from dagster import AssetExecutionContext, MaterializeResult, asset

from jobpipe.orchestration import OWNERS
from jobpipe.orchestration.assets.vectors import job_embeddings, vector_index
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS, nightly
from jobpipe.orchestration.outcomes import stage_failure
from jobpipe.orchestration.resources import EmbedderResource, PipelineSettingsResource, PostgresResource
from jobpipe.pipeline.candidates import embed_candidates, match_candidates, profile_candidates
from jobpipe.pipeline.errors import StageError

GROUP = "candidates"


@asset(group_name=GROUP, kinds={"python", "postgres"}, automation_condition=nightly(), owners=OWNERS)
def candidate_profiles(postgres: PostgresResource, settings: PipelineSettingsResource) -> MaterializeResult:
    """Parse resumes into profiles (skills, cities, experience) with the same taxonomy as jobs.

    Using the jobs' own skill and city vocabulary is what makes "matched / missing skills"
    comparable across the two sides.
    """
    with postgres.connect() as conn:
        outcome = profile_candidates(conn, settings.candidates_path)
    return MaterializeResult(metadata=outcome.as_metadata())


@asset(
    deps=[candidate_profiles],
    group_name=GROUP,
    kinds={"python", "pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    owners=OWNERS,
)
def candidate_vectors(context: AssetExecutionContext, postgres: PostgresResource,
                      embedder: EmbedderResource) -> MaterializeResult:
    """Embed changed candidate profiles with the same model as jobs (vectors are only comparable
    within one model)."""
    with postgres.connect() as conn:
        try:
            outcome = embed_candidates(conn, embedder.get(), run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=outcome.as_metadata())


@asset(
    deps=[candidate_vectors, job_embeddings, vector_index],
    group_name=GROUP,
    kinds={"python", "postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
    owners=OWNERS,
)
def candidate_matches(context: AssetExecutionContext, postgres: PostgresResource,
                      embedder: EmbedderResource) -> MaterializeResult:
    """Rank open jobs for every candidate (vector similarity + skill overlap), precomputed so an
    agent's "what fits this candidate?" is a lookup."""
    with postgres.connect() as conn:
        try:
            outcome = match_candidates(conn, embedder.get(), run_id=context.run_id)
        except StageError as exc:
            raise stage_failure(exc) from exc
    return MaterializeResult(metadata=outcome.as_metadata())

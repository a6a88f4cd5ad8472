"""Candidate (resume) assets: profiles -> vectors -> matches against open jobs."""


from dagster import AssetExecutionContext, MaterializeResult, asset

from jobpipe.orchestration.assets.vectors import job_embeddings, vector_index
from jobpipe.orchestration.automation import AFTER_UPSTREAM_LANDS, nightly
from jobpipe.orchestration.resources import EmbedderResource, PipelineSettingsResource, PostgresResource

GROUP = "candidates"


@asset(group_name=GROUP, kinds={"python", "postgres"}, automation_condition=nightly())
def candidate_profiles(postgres: PostgresResource, settings: PipelineSettingsResource) -> MaterializeResult:
    """Parse resumes into profiles (skills, cities, experience) with the same taxonomy as jobs.

    Using the jobs' own skill and city vocabulary is what makes "matched / missing skills"
    comparable across the two sides.
    """
    from jobpipe.candidates import load_resumes, parse_resume, upsert_candidates

    path = settings.resolved()["candidates_path"]
    resumes = load_resumes(path)
    profiles = [parse_resume(r.candidate_id, r.text, name=r.name) for r in resumes]
    with postgres.connect() as conn:
        counts = upsert_candidates(conn, profiles)
    return MaterializeResult(metadata={"candidates": len(profiles), **_counts(counts)})


@asset(
    deps=[candidate_profiles],
    group_name=GROUP,
    kinds={"python", "pgvector"},
    automation_condition=AFTER_UPSTREAM_LANDS,
)
def candidate_vectors(postgres: PostgresResource, embedder: EmbedderResource) -> MaterializeResult:
    """Embed changed candidate profiles with the same model as jobs (vectors are only comparable
    within one model)."""
    from jobpipe.store import sync_candidate_embeddings

    with postgres.connect() as conn:
        counts = sync_candidate_embeddings(conn, embedder.get())
    return MaterializeResult(metadata={"embedded": counts.embedded})


@asset(
    deps=[candidate_vectors, job_embeddings, vector_index],
    group_name=GROUP,
    kinds={"python", "postgres"},
    automation_condition=AFTER_UPSTREAM_LANDS,
)
def candidate_matches(context: AssetExecutionContext, postgres: PostgresResource, embedder: EmbedderResource) -> MaterializeResult:
    """Rank open jobs for every candidate (vector similarity + skill overlap), precomputed so an
    agent's "what fits this candidate?" is a lookup."""
    from jobpipe.candidates import compute_matches

    with postgres.connect() as conn:
        written = compute_matches(conn, embedder.get())
        candidates = conn.execute("SELECT count(DISTINCT candidate_id) FROM candidate_matches").fetchone()[0]
    return MaterializeResult(metadata={"matches": written, "candidates_matched": candidates})


def _counts(counts: object) -> dict[str, int]:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(counts) and not isinstance(counts, type):
        return {k: int(v) for k, v in asdict(counts).items() if isinstance(v, (int, float))}
    if isinstance(counts, dict):
        return {k: int(v) for k, v in counts.items()}
    return {}

"""The curated store: idempotent upsert, closing, change-detected keyword terms and embeddings, HNSW upkeep."""

from jobpipe.store.closing import CloseResult, ExpiredResult, close_expired, close_missing, close_vanished
from jobpipe.store.curate import CurateCounts, curate_fetch
from jobpipe.store.dedupe import dedupe_key
from jobpipe.store.duplicates import duplicate_groups
from jobpipe.store.index import IndexState, ensure_vector_index, index_recall, index_state, model_predicate, vector_expr
from jobpipe.store.jobs import JOB_FIELDS, SUMMARY_FIELDS, load_job, load_job_by_id, load_jobs
from jobpipe.store.models import ModelInfo, active_model, models_in_use
from jobpipe.store.retired import PrunedModels, prune_retired_models
from jobpipe.store.terms import TermCounts, pending_terms, sync_job_terms
from jobpipe.store.upsert import UpsertCounts, upsert_jobs
from jobpipe.store.vectors import (
    EmbedCounts,
    pending_candidates,
    pending_jobs,
    sync_candidate_embeddings,
    sync_job_embeddings,
)

__all__ = [
    "JOB_FIELDS", "SUMMARY_FIELDS", "CloseResult", "CurateCounts", "ExpiredResult", "close_expired", "curate_fetch", "EmbedCounts", "IndexState", "load_job", "load_job_by_id", "load_jobs", "ModelInfo", "PrunedModels", "TermCounts", "UpsertCounts", "active_model", "close_missing", "close_vanished",
    "dedupe_key", "duplicate_groups", "ensure_vector_index", "index_recall", "index_state", "model_predicate", "models_in_use",
    "pending_candidates", "pending_jobs", "pending_terms", "prune_retired_models", "sync_candidate_embeddings", "sync_job_embeddings",
    "sync_job_terms", "upsert_jobs",
    "vector_expr",
]

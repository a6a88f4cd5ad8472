"""Whole-store stages after the day's postings landed: vectors, their indexes, the serving snapshot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from typing import Any

import psycopg

from jobpipe.embedding.base import Embedder
from jobpipe.pipeline.locking import locked
from jobpipe.pipeline.report import Report
from jobpipe.store import (
    active_model,
    ensure_vector_index,
    index_recall,
    index_state,
    models_in_use,
    pending_jobs,
    prune_retired_models,
    sync_job_embeddings,
)
from jobpipe.store.serving import publish_serving_snapshot
from jobpipe.store.term_lists import merge_term_lists
from jobpipe.store.vectors import database_now, embedded_by_source

#: The HNSW index is trusted only while it finds what exact search finds (recall@10).
RECALL_TARGET = 0.95
#: The checks of the whole-store stages; the Dagster asset checks carry these names.
RECALL_CHECK = "hnsw_recall"                  # vector_index: recall@10 below RECALL_TARGET
COVERAGE_CHECK = "every_open_job_searchable"  # serving_jobs: open jobs still waiting for a vector


@dataclass(frozen=True)
class EmbedOutcome(Report):
    """Vectors computed for the open jobs whose embedding text changed (or that had none)."""

    embedded: int = 0
    pending_before: int = 0
    pending_after: int = 0
    model: str = ""
    dims: int = 0
    active_model: str | None = None   # the model search reads after this stage
    activated: bool = False           # this stage completed a model switch
    by_source: dict[str, int] = field(default_factory=dict)   # vectors computed, per source


def embed_jobs(conn: psycopg.Connection, embedder: Embedder, *,
               progress: Callable[[int, int], None] | None = None, run_id: str | None = None) -> EmbedOutcome:
    """Embed exactly the open jobs whose embedding text changed (or that lack a vector of the model).

    A job's old vector keeps serving until its new one is committed. Switching models embeds
    under the new model in the background; search moves over only once it covers every open job.
    One embedding run at a time per database: a second one raises :class:`StageBusyError` (it
    would embed the same postings again).
    """
    with locked(conn, "embeddings", stage="embed", run_id=run_id):
        started = database_now(conn)
        before = pending_jobs(conn, embedder.model)
        counts = sync_job_embeddings(conn, embedder, progress=progress)
        after = pending_jobs(conn, embedder.model)
        serving = active_model(conn)
        by_source = embedded_by_source(conn, embedder.model, since=started) if counts.embedded else {}
        if not conn.autocommit:
            conn.commit()
    return EmbedOutcome(embedded=counts.embedded, pending_before=before, pending_after=after, model=embedder.model,
                        dims=embedder.dims, active_model=serving.model if serving else None,
                        activated=counts.activated, by_source=by_source)


@dataclass(frozen=True)
class IndexOutcome(Report):
    """Every model in use has its HNSW index; its recall measured; long-retired models dropped;
    the keyword leg's posting lists merged (``jobpipe.store.term_lists``)."""

    indexes: list[dict[str, Any]] = field(default_factory=list)   # IndexState of every model in use
    built_now: int = 0
    #: model -> {"unfiltered": recall@10, "filtered": recall@10 under a selective filter}
    recall: dict[str, dict[str, float]] = field(default_factory=dict)
    pruned_models: str = ""
    pruned_job_vectors: int = 0
    pruned_candidate_vectors: int = 0
    worst_recall: float = 1.0
    recall_target: float = RECALL_TARGET
    #: "current" (nothing to merge), "incremental" or "full"; postings applied, lists written, seconds
    keyword_lists: dict[str, Any] = field(default_factory=dict)

    @property
    def recall_ok(self) -> bool:
        return self.worst_recall >= self.recall_target


def maintain_indexes(conn: psycopg.Connection, *, m: int, ef_construction: int,
                     retired_after: timedelta, run_id: str | None = None) -> IndexOutcome:
    """Keep one HNSW (cosine) index per model in use, measure it against exact search, prune;
    merge the day's keyword-term changes into the keyword leg's posting lists.

    Models retired longer ago than ``retired_after`` lose their vectors and index: kept that
    long, switching back costs no re-embedding; kept forever, they only cost disk. The lists are
    merged once a night here, after every source's terms landed, rather than after each source
    (a merge rewrites the long lists of common words whatever the number of changed postings);
    until then the keyword leg answers from the GIN indexes.
    """
    with locked(conn, "indexes", stage="index", run_id=run_id):
        models = models_in_use(conn)
        built = [ensure_vector_index(conn, info.model, info.dims, m=m, ef_construction=ef_construction)
                 for info in models]
        recalls = {info.model: {"unfiltered": index_recall(conn, info.model),
                                "filtered": index_recall(conn, info.model, filter_sql="selective")}
                   for info in models}
        states = index_state(conn)
        pruned = prune_retired_models(conn, older_than=retired_after)
        lists = merge_term_lists(conn)
    worst = min((v for r in recalls.values() for v in r.values()), default=1.0)
    return IndexOutcome(indexes=[asdict(s) for s in states], built_now=sum(1 for s in built if s.built_now),
                        recall=recalls, pruned_models=", ".join(pruned.models), pruned_job_vectors=pruned.job_vectors,
                        pruned_candidate_vectors=pruned.candidate_vectors, worst_recall=round(worst, 4),
                        keyword_lists={"mode": lists.mode, "postings": lists.postings, "lists": lists.lists,
                                       "seconds": round(lists.seconds, 2)})


@dataclass(frozen=True)
class ServingOutcome(Report):
    """What the query service can reach now (a ``serving_snapshots`` row)."""

    open_jobs: int = 0
    with_vector: int = 0        # open jobs with a vector of the active model
    closed_jobs: int = 0
    active_model: str | None = None
    duplicate_groups: int = 0

    @property
    def missing_vectors(self) -> int:
        return self.open_jobs - self.with_vector


def publish_serving(conn: psycopg.Connection) -> ServingOutcome:
    """Record the ``serving_jobs`` view's coverage, so a gap (jobs waiting for vectors) is visible."""
    snap = publish_serving_snapshot(conn)
    return ServingOutcome(open_jobs=snap["open_jobs"], with_vector=snap["with_vector"], closed_jobs=snap["closed_jobs"],
                          active_model=snap["model"], duplicate_groups=snap["duplicate_groups"])

"""Everything a request needs (pool, embedder, settings) and the operations both HTTP and MCP expose.

HTTP routes and MCP tools are thin adapters over these methods, so the two interfaces
cannot drift apart in what they return or in what they allow.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit

import psycopg
from pgvector.psycopg import register_vector
from psycopg_pool import PoolTimeout

from jobpipe.candidates.intake import add_candidate, delete_candidate
from jobpipe.candidates.matching import match_with_profile, read_matches
from jobpipe.candidates.store import UnknownCandidateError, load_candidate
from jobpipe.config import get_settings
from jobpipe.db import database_url
from jobpipe.embedding import get_embedder, local_embedder
from jobpipe.search import search
from jobpipe.search.rerank import reranker_from_env
from jobpipe.search.types import SearchFilters
from jobpipe.service import queries
from jobpipe.service.login import resolve_login, resolve_writer_login
from jobpipe.service.pool import open_pool
from jobpipe.service.settings import ServiceSettings, service_settings
from jobpipe.store.serving import latest_serving_snapshot
from jobpipe.text.sanitize import clean_text, clean_value


def jsonable(value: Any) -> Any:
    """Debug details as plain JSON types (numbers, strings, lists, dicts)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return str(value)


def safe_url(url: str | None) -> str | None:
    """Only http(s) links leave the service: a ``javascript:`` or ``file:`` URL is dropped."""
    url = clean_text(url)
    if not url:
        return None
    return url if urlsplit(url).scheme.lower() in ("http", "https") else None


def _summary(data: dict[str, Any]) -> dict[str, Any]:
    out = clean_value(data)
    out["url"] = safe_url(data.get("url"))
    return out


def match_hit(result: Any) -> dict[str, Any]:
    """One ranked match as the API shows it (with the older clients' field names too)."""
    item = _summary(asdict(result))
    listed = len(result.matched_skills) + len(result.missing_skills) + len(result.matched_nice) + len(result.missing_nice)
    item.update(vector_similarity=result.similarity, fused_score=result.score,
                skill_overlap=(len(result.matched_skills) + len(result.matched_nice)) / listed if listed else 0.0)
    return item


log = logging.getLogger(__name__)


class ServiceContext:
    """Shared by every request of one process. Thread-safe: endpoints run in a thread pool."""

    def __init__(self, settings: ServiceSettings | None = None, *, database_url: str | None = None,
                 embedder: Any = None, writer_source: str | None = None):
        self.settings = settings or service_settings()
        self._database_url = database_url or self.settings.database_url
        #: The URL the service was pointed at before it settled its reader (the owner's, on the
        #: embedded server): where jobpipe may set the candidate writer up itself.
        self._writer_source = writer_source
        self._writer_url: str | None = None
        self._embedder = embedder
        self._pool: Any = None
        self._login_url: str | None = None
        self._pool_lock = threading.Lock()
        self._embedder_lock = threading.Lock()

        self.reranker = reranker_from_env()   # None unless JOBPIPE_RERANK_URL is set

    # ------------------------------------------------------------------ resources
    @property
    def database_url(self) -> str:
        """The URL the service was pointed at (its own login, or the pipeline's database)."""
        if self._database_url is None:
            self._database_url = database_url()
        return self._database_url

    def login_url(self) -> str:
        """The URL the pool connects with: the service's own reader (jobpipe.service.login)."""
        if self._login_url is None:
            self._login_url = resolve_login(self.database_url)
        return self._login_url

    @property
    def embedder(self) -> Any:
        with self._embedder_lock:
            if self._embedder is None:
                self._embedder = self._default_embedder()
            return self._embedder

    def _default_embedder(self) -> Any:
        """The configured embedder, or the active model's own when the configured one differs.

        Query vectors are only comparable with job vectors of the same model; when the
        pipeline switched models (or the service was started with other settings) and the
        active model is one of the local ones, following it keeps vector search working.
        """
        embedder = get_embedder()
        try:
            with self.connection() as conn:
                row = conn.execute("SELECT model FROM embedding_models WHERE state = 'active'").fetchone()
            if row and row[0] != embedder.model:
                embedder = local_embedder(row[0])
                log.info("using the active model %r for queries", row[0])
        except Exception as exc:  # not a local model, or no database yet: keep the configured one
            log.warning("keeping embedder %r: %s", embedder.model, exc)
        return embedder

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        with self._pool_lock:
            if self._pool is None:
                self._pool = open_pool(self.login_url(), self.settings)
        with self._pool.connection() as conn:
            yield conn

    @contextmanager
    def spare_connection(self) -> Iterator[psycopg.Connection | None]:
        """A second pooled connection if one is free right now, else None (never waits).

        Hybrid search runs its two legs side by side when it gets one; under load, when every
        connection is busy, it runs them in turn rather than queueing for a second.
        """
        pool = self._pool
        with ExitStack() as stack:
            conn = None
            if pool is not None:
                try:
                    conn = stack.enter_context(pool.connection(timeout=0.001))
                except PoolTimeout:
                    conn = None
            yield conn

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    # ------------------------------------------------------------------ operations
    def search(self, query: str, filters: SearchFilters, *, top_k: int = 10, debug: bool = False,
               auto_filters: bool = False, rerank: bool = False) -> dict[str, Any]:
        started = time.perf_counter()
        embedder = self.embedder
        with self.connection() as conn, self.spare_connection() as spare:
            response = search(conn, query, filters, top_k=top_k, embedder=embedder, debug=debug, keyword_conn=spare,
                              auto_filters=auto_filters, rerank=rerank, reranker=self.reranker)
        results = []
        for r in response.results:
            item = _summary({
                "job_id": r.job_id, "source": r.source, "external_id": r.external_id, "title": r.title,
                "company": r.company, "cities": list(r.cities), "salary": dict(r.salary), "url": r.url,
                "posted_at": r.posted_at,
            })
            item.update(score=float(r.score), vector_rank=r.vector_rank, keyword_rank=r.keyword_rank,
                        fused_score=float(r.fused_score), vector_similarity=r.extra.get("vector_similarity"),
                        keyword_score=r.extra.get("keyword_score"), rerank_score=r.extra.get("rerank_score"),
                        query_skills_held=r.extra.get("query_skills_held"),
                        query_seniority_held=r.extra.get("query_seniority_held"),
                        query_constraints_met=r.extra.get("query_constraints_met"))
            results.append(item)
        body: dict[str, Any] = {"results": results, "model": response.model,
                                "mode": getattr(response, "mode", None),
                                "notes": clean_value(list(getattr(response, "notes", None) or [])),
                                "understood": clean_value(response.understood.model_dump()),
                                "applied_filters": response.filters.model_dump(mode="json"),
                                "auto_filters": list(response.auto_filters),
                                "rerank": clean_value(jsonable(response.rerank)) if response.rerank else None}
        if debug:
            timings = {k: float(v) for k, v in (response.timings_ms or {}).items()}
            timings["service_total"] = (time.perf_counter() - started) * 1000
            body["timings_ms"] = timings
            body["debug"] = clean_value(jsonable(getattr(response, "debug", None) or {}))
        return body

    def job(self, job_id: int) -> dict[str, Any] | None:
        with self.connection() as conn:
            data = queries.get_job(conn, job_id)
        if data is None:
            return None
        out = clean_value(data, multiline_keys=frozenset({"description_text"}))
        out["url"] = safe_url(data.get("url"))
        return out

    def match(self, *, candidate_id: str | None = None, resume_text: str | None = None,
              filters: SearchFilters | None = None, top_k: int = 10) -> dict[str, Any]:
        # Only raw text needs embedding; a stored candidate normally has its vector already.
        embedder = self.embedder if resume_text is not None else self._embedder_if_loadable()
        with self.connection() as conn:
            profile, results = match_with_profile(
                conn, candidate_id=candidate_id, resume_text=resume_text, filters=filters,
                top_k=top_k, embedder=embedder,
            )
        return {
            "candidate_id": candidate_id,
            "candidate_skills": clean_value(list(profile.skills)),
            "results": [match_hit(r) for r in results],
        }

    # ------------------------------------------------------------------ candidates
    def writer_url(self) -> str:
        """The candidate writer's login (ServiceConfigError, answered 503, when there is none)."""
        if self._writer_url is None:
            given = self.settings.writer_database_url
            self._writer_url = resolve_writer_login(given or self._writer_source or self.database_url,
                                                    given=given is not None)
        return self._writer_url

    @contextmanager
    def write_connection(self) -> Iterator[psycopg.Connection]:
        """A connection that may write candidate rows only (the candidate writer's login), time-boxed.

        Opened per request: writes are rare, and the read pool stays read-only whatever happens here.
        """
        with psycopg.connect(self.writer_url(), autocommit=False) as conn:
            conn.prepare_threshold = None
            conn.execute("SELECT set_config('statement_timeout', %s, false)",
                         (f"{int(self.settings.write_timeout_ms)}ms",))
            conn.commit()
            register_vector(conn)
            yield conn

    def add_candidate(self, data: bytes, suffix: str, *, candidate_id: str | None, name: str | None = None,
                      preferences: dict[str, Any] | None = None) -> dict[str, Any]:
        settings = get_settings()
        default_id = None if candidate_id else "c-" + uuid.uuid4().hex[:12]
        if name and suffix == ".txt":
            data, suffix = json.dumps({"name": name, "text": data.decode("utf-8", "replace")}).encode(), ".json"
        with self.write_connection() as conn:
            added = add_candidate(conn, data, suffix, candidate_id=candidate_id, default_id=default_id,
                                  preferences=preferences, origin="api", embedder=self._embedder_if_loadable(),
                                  top_n=settings.matches_top_n, reserve=settings.matches_reserve)
        return added.as_json()

    def candidate(self, candidate_id: str) -> dict[str, Any] | None:
        with self.connection() as conn:
            try:
                shown = load_candidate(conn, candidate_id).show()
            except UnknownCandidateError:
                return None
        return clean_value(shown, multiline_keys=frozenset({"embedding_text", "evidence"}))

    def delete_candidate(self, candidate_id: str) -> str | None:
        with self.write_connection() as conn:
            return delete_candidate(conn, candidate_id, folder=get_settings().candidates_path)

    def candidate_matches(self, candidate_id: str, *, top_k: int = 10) -> dict[str, Any]:
        """The stored list (raises UnknownCandidateError): two short queries, no vector search."""
        with self.connection() as conn:
            stored = read_matches(conn, candidate_id, top_k=top_k, top_n=get_settings().matches_top_n)
        return {"candidate_id": stored.candidate_id, "model": stored.model, "computed_at": stored.computed_at,
                "note": stored.note, "results": [match_hit(r) for r in stored.results]}

    def _embedder_if_loadable(self) -> Any:
        try:
            return self.embedder
        except Exception:  # no embedder configured: stored vectors still work
            return None

    def health(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": "ok", "database": {"ok": False}, "index": {}, "embedder": {}, "sources": []}
        try:
            with self.connection() as conn:
                body["database"] = queries.database_state(conn)
                body["index"] = queries.health_index(conn)
                body["sources"] = queries.source_freshness(conn)
                serving = conn.execute("SELECT to_regclass('serving_snapshots') IS NOT NULL").fetchone()
                if serving and serving[0]:
                    body["index"]["serving_snapshot"] = latest_serving_snapshot(conn)
        except Exception as exc:  # health must describe failures, not fail itself
            body["status"] = "degraded"
            body["database"] = {"ok": False, "error": clean_text(f"{type(exc).__name__}: {exc}")}
        try:
            embedder = self.embedder
            body["embedder"] = {"ok": True, "model": embedder.model, "dims": embedder.dims}
        except Exception as exc:
            body["status"] = "degraded"
            body["embedder"] = {"ok": False, "error": clean_text(f"{type(exc).__name__}: {exc}")}
        active = body["index"].get("active_model")
        if body["embedder"].get("ok"):
            body["embedder"]["matches_active_model"] = body["embedder"]["model"] == active
        if not active or not body["embedder"].get("matches_active_model"):
            body["status"] = "degraded"
        return clean_value(body)

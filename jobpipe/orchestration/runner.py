"""Materialize the whole graph in-process: what ``jobpipe run`` and ``make run`` do.

Each source runs as its own partition run (a failing source is reported and the others go
on), then the unpartitioned stages run once. Counts come from the assets' metadata, which
come from the database, so the summary is what actually happened.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key, today

COUNT_KEYS = ("fetched", "inserted", "updated", "unchanged", "rejected", "closed", "embedded")
_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class SourceSummary:
    fetched: int = 0
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0
    rejected: int = 0           # quarantined: items of the fetch that were not postings + normalization rejects
    closed: int = 0
    embedded: int = 0
    complete: bool = False
    ok: bool = True
    error: str | None = None
    checks_failed: list[str] = field(default_factory=list)
    unconfirmed: str | None = None   # why the listing was not trusted to close anything


@dataclass
class RunSummary:
    day: date
    sources: dict[str, SourceSummary]
    embedded: int = 0
    model: str | None = None
    index: list[dict[str, Any]] = field(default_factory=list)
    serving: dict[str, Any] = field(default_factory=dict)
    candidates: dict[str, Any] = field(default_factory=dict)
    downstream_ok: bool = True
    downstream_error: str | None = None
    seconds: float = 0.0

    @property
    def totals(self) -> dict[str, int]:
        totals = {k: sum(getattr(s, k) for s in self.sources.values()) for k in COUNT_KEYS}
        totals["embedded"] = self.embedded
        return totals

    @property
    def ok(self) -> bool:
        return self.downstream_ok and all(s.ok for s in self.sources.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "day": self.day.isoformat(),
            "ok": self.ok,
            "totals": self.totals,
            "sources": {
                name: {**{k: getattr(s, k) for k in COUNT_KEYS}, "complete": s.complete, "ok": s.ok,
                       "error": s.error, "checks_failed": s.checks_failed, "listing_unconfirmed": s.unconfirmed}
                for name, s in self.sources.items()
            },
            "embedding_model": self.model,
            "index": self.index,
            "serving": {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in self.serving.items()},
            "candidates": self.candidates,
            "downstream_error": self.downstream_error,
            "seconds": round(self.seconds, 2),
        }


def _metadata(result: Any, asset_name: str) -> dict[str, Any]:
    from dagster import AssetKey

    out: dict[str, Any] = {}
    for event in result.get_asset_materialization_events():
        mat = event.step_materialization_data.materialization
        if mat.asset_key == AssetKey(asset_name):
            out = {k: getattr(v, "value", v) for k, v in mat.metadata.items()}
    return out


def _failed_checks(result: Any) -> list[str]:
    failed = []
    for event in result.all_events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            evaluation = event.event_specific_data
            if not evaluation.passed:
                failed.append(f"{evaluation.asset_key.to_user_string()}:{evaluation.check_name}")
    return failed


def _failure_text(result: Any) -> str:
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.event_specific_data.error
            desc = getattr(event.event_specific_data, "user_failure_data", None)
            if desc is not None and getattr(desc, "description", None):
                return str(desc.description)
            if error is not None:
                return error.message.strip().splitlines()[-1] if error.message else error.cls_name
    return "run failed"


def run_pipeline(
    sources_file: Path | None = None,
    *,
    day: date | None = None,
    instance: Any = None,
    echo: Callable[[str], None] | None = None,
) -> RunSummary:
    """Run every stage once for ``day`` (default: today) and return what happened.

    ``sources_file`` defaults to ``JOBPIPE_SOURCES`` or the bundled demo; with the demo, a local
    HTTP server serves its boards for the duration of the run.
    """
    from dagster import materialize

    from jobpipe.config import DEMO_SOURCES_FILE, get_settings
    from jobpipe.db import ready_url
    from jobpipe.orchestration.definitions import ASSETS
    from jobpipe.orchestration.resources import (
        EmbedderResource,
        PipelineSettingsResource,
        PostgresResource,
        SourcesResource,
    )
    from jobpipe.sources import load_sources

    started = time.monotonic()
    say = echo or (lambda _msg: None)
    settings = get_settings()
    path = Path(sources_file) if sources_file else settings.sources_file
    day = day or today()
    logging.getLogger("dagster").setLevel(logging.WARNING)

    demo = None
    if path.resolve() == DEMO_SOURCES_FILE.resolve():
        import os

        from jobpipe.demo import DemoServer

        demo = DemoServer()
        demo.start()
        os.environ["JOBPIPE_DEMO_URL"] = demo.url
        say(f"demo boards served at {demo.url}")
    try:
        configs = [s for s in load_sources(path) if s.enabled]  # a broken file fails here, before any fetch
        url = ready_url()
        if instance is None:
            from jobpipe.orchestration.instance import get_instance

            instance = get_instance()
        instance.add_dynamic_partitions(SOURCES_PARTITION, [s.name for s in configs])
        resources = {
            "postgres": PostgresResource(database_url=url),
            "embedder": EmbedderResource(),
            "sources": SourcesResource(path=str(path)),
            "settings": PipelineSettingsResource(),
        }
        run_started = datetime.now(timezone.utc)
        ingest = [a for a in ASSETS if a.key.path[-1] in ("raw_postings", "normalized_postings", "curated_jobs")]
        summary = RunSummary(day=day, sources={})
        for i, config in enumerate(configs, 1):
            result = materialize(
                ASSETS, selection=ingest, partition_key=partition_key(config.name, day), resources=resources,
                instance=instance, raise_on_error=False, run_config=_QUIET, tags={"jobpipe/source": config.name},
            )
            raw = _metadata(result, "raw_postings")
            norm = _metadata(result, "normalized_postings")
            cur = _metadata(result, "curated_jobs")
            s = SourceSummary(
                fetched=int(raw.get("fetched", raw.get("postings", 0)) or 0),
                inserted=int(cur.get("inserted", 0)), updated=int(cur.get("updated", 0)),
                unchanged=int(cur.get("unchanged", 0)),
                rejected=int(norm.get("rejected", 0)) + int(raw.get("quarantined", 0) or 0),
                closed=int(cur.get("closed", 0)), complete=bool(raw.get("complete", False)),
                ok=result.success, error=None if result.success else _failure_text(result),
                checks_failed=_failed_checks(result),
                unconfirmed=None if cur.get("listing_confirmed", True) else str(cur.get("close_reason")),
            )
            summary.sources[config.name] = s
            status = "ok" if s.ok else f"FAILED: {s.error}"
            if s.unconfirmed:
                status += f"; {s.unconfirmed}"
            say(f"[{i}/{len(configs)}] {config.name}: fetched {s.fetched}, inserted {s.inserted}, "
                f"updated {s.updated}, unchanged {s.unchanged}, rejected {s.rejected}, closed {s.closed} ({status})")

        downstream = [a for a in ASSETS if a not in ingest]
        say("embedding changed postings, maintaining the index, matching candidates ...")
        result = materialize(ASSETS, selection=downstream, resources=resources, instance=instance,
                             raise_on_error=False, run_config=_QUIET)
        emb = _metadata(result, "job_embeddings")
        idx = _metadata(result, "vector_index")
        serving = _metadata(result, "serving_jobs")
        summary.embedded = int(emb.get("embedded", 0))
        summary.model = emb.get("active_model") or emb.get("model")
        summary.index = list(idx.get("indexes", []) or [])
        if idx.get("recall"):
            summary.index.append({"recall_at_10": idx["recall"]})
        summary.serving = serving
        summary.candidates = {k: v for k, v in _metadata(result, "candidate_matches").items()}
        summary.downstream_ok = result.success
        if not result.success:
            summary.downstream_error = _failure_text(result)
        failed_checks = _failed_checks(result)
        if failed_checks:
            summary.downstream_error = (summary.downstream_error or "") + " failed checks: " + ", ".join(failed_checks)

        from jobpipe.db import connect

        with connect(url) as conn:
            for source, n in conn.execute(
                "SELECT j.source, count(*) FROM job_embeddings e JOIN jobs j USING (job_id) "
                "WHERE e.embedded_at >= %s GROUP BY j.source", (run_started,)
            ):
                if source in summary.sources:
                    summary.sources[source].embedded = n
        summary.seconds = time.monotonic() - started
        return summary
    finally:
        if demo is not None:
            demo.stop()


def format_summary(summary: RunSummary) -> str:
    """The human summary ``jobpipe run`` prints."""
    cols = ("fetched", "inserted", "updated", "unchanged", "rejected", "closed", "embedded")
    name_w = max([len("source")] + [len(n) for n in summary.sources]) + 2
    lines = [f"jobpipe run for {summary.day.isoformat()}  ({summary.seconds:.1f} s)", ""]
    lines.append("source".ljust(name_w) + "".join(c.rjust(10) for c in cols) + "  status")
    for name, s in summary.sources.items():
        status = "ok" + ("" if s.complete else " (incomplete listing)") if s.ok else f"FAILED: {s.error}"
        if s.unconfirmed:
            status += f"; {s.unconfirmed}"
        if s.checks_failed:
            status += "; failed checks: " + ", ".join(s.checks_failed)
        lines.append(name.ljust(name_w) + "".join(str(getattr(s, c)).rjust(10) for c in cols) + "  " + status)
    totals = summary.totals
    lines.append("TOTAL".ljust(name_w) + "".join(str(totals[c]).rjust(10) for c in cols))
    lines.append("")
    lines.append(f"embeddings computed: {summary.embedded} (serving model: {summary.model})")
    recall: dict[str, Any] = {}
    for state in summary.index:
        if "recall_at_10" in state:
            recall = state["recall_at_10"]
    for state in summary.index:
        if "name" not in state:
            continue
        model_recall = recall.get(state.get("model"), {})
        recall_text = ", ".join(f"{k} {v:.3f}" for k, v in model_recall.items())
        lines.append(
            f"index: {state['name']} (hnsw, {state.get('model')}, {state.get('dims')} dims, m={state.get('m')}, "
            f"ef_construction={state.get('ef_construction')}): {'valid' if state.get('valid') else 'NOT VALID'}, "
            f"{state.get('rows')} vectors" + (", built now" if state.get("built_now") else "")
            + (f"; recall@10 vs exact: {recall_text}" if recall_text else "")
        )
    if summary.serving:
        sv = summary.serving
        lines.append(f"serving: {sv.get('open_jobs')} open jobs, {sv.get('with_vector')} searchable by vector, "
                     f"{sv.get('closed_jobs')} closed, {sv.get('duplicate_groups')} duplicate groups")
    if summary.candidates:
        c = summary.candidates
        lines.append(f"candidates: {c.get('candidates_matched', 0)} matched to open jobs ({c.get('matches', 0)} matches)")
    if summary.downstream_error:
        lines.append(f"downstream: {summary.downstream_error}")
    return "\n".join(lines)


def summary_dict(summary: RunSummary) -> dict[str, Any]:
    return summary.to_json()


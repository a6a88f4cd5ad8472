"""What one night's run did: per source and for the whole store, built from the stages' results.

``jobpipe run`` (through Dagster) and ``jobpipe.sync`` (in-process) return the same
:class:`RunSummary`; ``jobpipe run --json`` prints :meth:`RunSummary.to_json`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

from jobpipe.pipeline.ingest import (
    CLOSE_GUARD_CHECK,
    LISTING_CHECK,
    REJECT_RATE_CHECK,
    CurateOutcome,
    FetchOutcome,
    NormalizeOutcome,
)
from jobpipe.pipeline.maintenance import RetentionOutcome
from jobpipe.pipeline.vectors import COVERAGE_CHECK, RECALL_CHECK, EmbedOutcome, IndexOutcome, ServingOutcome
from jobpipe.store.operations import close_guard_problem, reject_rate_problem

if TYPE_CHECKING:   # the candidate stages import search; a night without candidates need not
    from jobpipe.pipeline.candidates import CandidateVectorsOutcome, MatchOutcome, ProfileOutcome

#: The per-source counts, in the order the summary table shows them.
COUNT_KEYS = ("fetched", "inserted", "updated", "unchanged", "rejected", "closed", "embedded")


class RunError(RuntimeError):
    """A source or a whole-store stage failed: one line per failure; ``summary`` says what else ran."""

    def __init__(self, problems: list[str], summary: RunSummary | None = None) -> None:
        self.problems = problems
        self.summary = summary
        super().__init__("\n".join(problems))


@dataclass
class SourceSummary:
    """One source's day: its stages' results (None where a stage did not run) and its failure."""

    name: str
    fetch: FetchOutcome | None = None
    normalize: NormalizeOutcome | None = None
    curate: CurateOutcome | None = None
    embedded: int = 0                # vectors computed for this source's postings
    error: str | None = None         # why a stage failed (the later stages then did not run)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def fetched(self) -> int:
        return self.fetch.fetched if self.fetch else 0

    @property
    def complete(self) -> bool:
        return bool(self.fetch and self.fetch.complete)

    @property
    def inserted(self) -> int:
        return self.curate.inserted if self.curate else 0

    @property
    def updated(self) -> int:
        return self.curate.updated if self.curate else 0

    @property
    def unchanged(self) -> int:
        return self.curate.unchanged if self.curate else 0

    @property
    def closed(self) -> int:
        return self.curate.closed if self.curate else 0

    @property
    def rejected(self) -> int:
        """Quarantined: listed items that were not postings + postings that failed validation."""
        return (self.normalize.rejected if self.normalize else 0) + (self.fetch.quarantined if self.fetch else 0)

    @property
    def unconfirmed(self) -> str | None:
        """Why the listing was not trusted to close anything (None: it was, or no close was decided)."""
        return None if self.curate is None or self.curate.listing_confirmed else self.curate.close_reason

    @property
    def close_refusal(self) -> str | None:
        """Why postings missing from the listing were not closed: an unconfirmed listing, or the
        mass-close guard's refusal (None: neither)."""
        if self.curate is None or (self.curate.listing_confirmed and not self.curate.close_refused):
            return None
        return self.curate.close_reason

    @property
    def checks_failed(self) -> list[str]:
        """``stage:check`` of every check this source's day failed."""
        failed = []
        if self.normalize is not None and not self.normalize.within_threshold:
            failed.append(f"normalized_postings:{REJECT_RATE_CHECK}")
        if self.curate is not None and self.curate.close_refused:
            failed.append(f"curated_jobs:{CLOSE_GUARD_CHECK}")
        if self.curate is not None and not self.curate.listing_confirmed:
            failed.append(f"curated_jobs:{LISTING_CHECK}")
        return failed

    @property
    def problems(self) -> list[str]:
        """The day's ERROR checks that failed (reject rate, refused mass close): one line each,
        naming the source, the share and what to do (``jobpipe.store.operations``). These fail the
        run; WARN checks do not."""
        lines = []
        n = self.normalize
        if n is not None and not n.within_threshold:
            total, rejected = (n.postings, n.rejected_postings) if n.postings else (n.passed + n.rejected, n.rejected)
            lines.append(n.problem or reject_rate_problem(self.name, rejected, total, n.threshold)
                         or f"{self.name}: reject rate {n.reject_rate:.1%} above threshold {n.threshold:.0%}")
        c = self.curate
        if c is not None and c.close_refused:
            lines.append(c.problem or close_guard_problem(self.name, c.would_close, c.open_before or c.would_close,
                                                          c.max_share))
        return lines

    def counts(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in COUNT_KEYS}


#: What ``jobpipe run --json`` reports of the candidate stages (integers; 0 for a stage that did not run).
CANDIDATE_KEYS = ("profiled", "embedded", "recomputed", "deleted", "quarantined")


@dataclass
class CandidatesSummary:
    """The candidate stages of one night (None where a stage did not run): counts only, never ids."""

    profiles: ProfileOutcome | None = None
    vectors: CandidateVectorsOutcome | None = None
    matches: MatchOutcome | None = None

    def counts(self) -> dict[str, int]:
        p, v, m = self.profiles, self.vectors, self.matches
        return {"profiled": p.profiled if p else 0, "embedded": v.embedded if v else 0,
                "recomputed": m.recomputed if m else 0, "deleted": p.deleted if p else 0,
                "quarantined": p.quarantined if p else 0}


@dataclass
class RunSummary:
    """One night: every source's day, then the whole-store stages (None where they did not run)."""

    day: date
    sources: dict[str, SourceSummary] = field(default_factory=dict)
    embedding: EmbedOutcome | None = None
    index: IndexOutcome | None = None
    serving: ServingOutcome | None = None
    retention: RetentionOutcome | None = None
    candidates: CandidatesSummary = field(default_factory=CandidatesSummary)
    downstream_failure: str | None = None   # why a whole-store stage failed
    seconds: float = 0.0

    @property
    def embedded(self) -> int:
        return self.embedding.embedded if self.embedding else 0

    @property
    def model(self) -> str | None:
        """The model search reads (after this run)."""
        return (self.embedding.active_model or self.embedding.model or None) if self.embedding else None

    @property
    def totals(self) -> dict[str, int]:
        totals = {k: sum(getattr(s, k) for s in self.sources.values()) for k in COUNT_KEYS}
        totals["embedded"] = self.embedded
        return totals

    @property
    def downstream_ok(self) -> bool:
        return self.downstream_failure is None

    @property
    def downstream_checks_failed(self) -> list[str]:
        failed = []
        if self.index is not None and not self.index.recall_ok:
            failed.append(f"vector_index:{RECALL_CHECK}")
        if self.serving is not None and self.serving.missing_vectors:
            failed.append(f"serving_jobs:{COVERAGE_CHECK}")
        return failed

    @property
    def downstream_error(self) -> str | None:
        """The whole-store stages' failure and failed checks, as one line (None: neither)."""
        checks = self.downstream_checks_failed
        if not checks:
            return self.downstream_failure
        return (self.downstream_failure or "") + " failed checks: " + ", ".join(checks)

    @property
    def ok(self) -> bool:
        """No stage failed and no ERROR check failed (a refused mass close, a reject rate above the
        threshold): ``jobpipe run`` exits non-zero otherwise. WARN checks are only reported."""
        return self.downstream_ok and all(s.ok and not s.problems for s in self.sources.values())

    @property
    def problems(self) -> list[str]:
        """One line per failed stage or failed ERROR check, for :class:`RunError` and stderr."""
        lines = []
        for name, s in self.sources.items():
            if s.error:
                lines.append(f"source {name!r}: {s.error}")
            lines.extend(s.problems)
        if self.downstream_failure:
            lines.append(f"embedding/index: {self.downstream_failure}")
        return lines

    def raise_for_errors(self) -> RunSummary:
        """Raise :class:`RunError` when a source or a whole-store stage or an ERROR check failed;
        else return self."""
        if not self.ok:
            raise RunError(self.problems, self)
        return self

    def to_json(self) -> dict[str, Any]:
        """The ``jobpipe run --json`` object."""
        index: list[dict[str, Any]] = []
        if self.index is not None:
            index = [*self.index.indexes, *([{"recall_at_10": self.index.recall}] if self.index.recall else [])]
        return {
            "day": self.day.isoformat(),
            "ok": self.ok,
            "totals": self.totals,
            "sources": {
                name: {**s.counts(), "complete": s.complete, "ok": s.ok, "error": s.error,
                       "checks_failed": s.checks_failed, "listing_unconfirmed": s.unconfirmed,
                       "close_refusal": s.close_refusal, "problems": s.problems}
                for name, s in self.sources.items()
            },
            "embedding_model": self.model,
            "index": index,
            "keyword_lists": self.index.keyword_lists if self.index is not None else {},
            "serving": self.serving.as_metadata() if self.serving else {},
            "candidates": self.candidates.counts(),
            "retention": self.retention.as_metadata() if self.retention else {},
            "downstream_error": self.downstream_error,
            "problems": self.problems,
            "seconds": round(self.seconds, 2),
        }


def source_line(position: str, s: SourceSummary) -> str:
    """The progress line of one source (``jobpipe run`` prints it as each source finishes)."""
    status = "ok" if s.ok else f"FAILED: {s.error}"
    if s.close_refusal:
        status += f"; {s.close_refusal}"
    return (f"[{position}] {s.name}: fetched {s.fetched}, inserted {s.inserted}, updated {s.updated}, "
            f"unchanged {s.unchanged}, rejected {s.rejected}, closed {s.closed} ({status})")


def format_summary(summary: RunSummary) -> str:
    """The human summary ``jobpipe run`` prints."""
    cols = COUNT_KEYS
    name_w = max([len("source")] + [len(n) for n in summary.sources]) + 2
    lines = [f"jobpipe run for {summary.day.isoformat()}  ({summary.seconds:.1f} s)", ""]
    lines.append("source".ljust(name_w) + "".join(c.rjust(10) for c in cols) + "  status")
    for name, s in summary.sources.items():
        status = "ok" + ("" if s.complete else " (incomplete listing)") if s.ok else f"FAILED: {s.error}"
        if s.close_refusal:
            status += f"; {s.close_refusal}"
        if s.checks_failed:
            status += "; failed checks: " + ", ".join(s.checks_failed)
        lines.append(name.ljust(name_w) + "".join(str(getattr(s, c)).rjust(10) for c in cols) + "  " + status)
    totals = summary.totals
    lines.append("TOTAL".ljust(name_w) + "".join(str(totals[c]).rjust(10) for c in cols))
    lines.append("")
    lines.append(f"embeddings computed: {summary.embedded} (serving model: {summary.model})")
    if summary.index is not None:
        for state in summary.index.indexes:
            model_recall = summary.index.recall.get(state.get("model") or "", {})
            recall_text = ", ".join(f"{k} {v:.3f}" for k, v in model_recall.items())
            lines.append(
                f"index: {state['name']} (hnsw, {state.get('model')}, {state.get('dims')} dims, m={state.get('m')}, "
                f"ef_construction={state.get('ef_construction')}): {'valid' if state.get('valid') else 'NOT VALID'}, "
                f"{state.get('rows')} vectors" + (", built now" if state.get("built_now") else "")
                + (f"; recall@10 vs exact: {recall_text}" if recall_text else "")
            )
        lists = summary.index.keyword_lists
        if lists:
            lines.append(f"keyword lists: {lists.get('mode')} ({lists.get('postings')} postings, "
                         f"{lists.get('lists')} lists written, {lists.get('seconds')} s)")
    if summary.serving is not None:
        sv = summary.serving
        lines.append(f"serving: {sv.open_jobs} open jobs, {sv.with_vector} searchable by vector, "
                     f"{sv.closed_jobs} closed, {sv.duplicate_groups} duplicate groups")
    if summary.candidates.profiles is not None or summary.candidates.matches is not None:
        c = summary.candidates.counts()
        lines.append(f"candidates: {c['profiled']} profiled, {c['embedded']} embedded, {c['recomputed']} match lists "
                     f"recomputed, {c['deleted']} deleted, {c['quarantined']} files quarantined")
    if summary.retention is not None:
        r = summary.retention
        lines.append(f"retention ({r.keep_days} days): pruned {r.fetch_runs_deleted} runs, {r.payloads_deleted} "
                     f"payloads; replayable from {r.replayable_from or '-'}"
                     + (f"; busy, pruned next time: {', '.join(r.busy_sources)}" if r.busy_sources else ""))
    if summary.downstream_error:
        lines.append(f"downstream: {summary.downstream_error}")
    return "\n".join(lines)

"""Reciprocal rank fusion, made aware of how far ahead each leg's top hits are.

Plain RRF gives each list ``1 / (k + rank)`` per posting and ignores scores: vector distances
and keyword scores live on unrelated scales. With k = 60 the curve is flat, so a posting
both legs rank mediocre (10th and 10th) beats the keyword leg's clear first hit that the
vector leg missed -- on the dev set, plain RRF was *worse* than keyword search alone at
hit@1 (0.73 vs 0.77). So each contribution is scaled by ``1 + gain * s``, where ``s`` in
[0, 1] is the posting's score within its own list (keyword: score / top score; vector:
min-max of cosine similarity). Ranks still decide between comparable hits; a hit that
stands far above its list keeps its lead. Gains (keyword 3, vector 1) sit in the middle
of a broad plateau measured on the dev set (2..4 / 1 gave the same hit@5), see docs/search.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60.0
#: How much a leg's own normalized score scales its RRF contribution.
SCORE_GAIN = {"keyword": 3.0, "vector": 1.0}
#: Lists fusion knows. Vector and keyword carry scores; a browse list is newest first, and the
#: lists of what the query states (:func:`stated_list`) are orders only.
LEGS = ("vector", "keyword", "browse", "skills", "seniority", "constraints")


@dataclass(frozen=True)
class LegResult:
    """What one leg found, best first: the one shape every leg returns and fusion reads.

    ``scores[i]`` is ``ids[i]``'s score in that leg (vector: cosine similarity; keyword: its
    BM25-style sum; browse: none), or ``scores`` is empty when the leg's order is all it has.
    """

    leg: str
    ids: tuple[int, ...]
    scores: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.leg not in LEGS:
            raise ValueError(f"unknown leg {self.leg!r} (known: {', '.join(LEGS)})")
        if self.scores and len(self.scores) != len(self.ids):
            raise ValueError(f"{self.leg} leg: {len(self.ids)} ids but {len(self.scores)} scores")

    @classmethod
    def of(cls, leg: str, hits: Sequence[tuple[int, float]]) -> LegResult:
        """From (job_id, score) pairs in rank order."""
        return cls(leg, tuple(h[0] for h in hits), tuple(float(h[1]) for h in hits))


@dataclass
class Fused:
    job_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)   # leg name -> 1-based rank
    leg_scores: dict[str, float] = field(default_factory=dict)   # leg name -> that leg's own score


def normalized_scores(leg: str, scores: Sequence[float]) -> list[float]:
    """Scores in [0, 1] within one list: keyword relative to its top, vector min-max."""
    if not scores:
        return []
    top, low = max(scores), min(scores)
    if leg == "keyword":
        return [s / top if top > 0 else 0.0 for s in scores]
    span = top - low
    return [(s - low) / span if span > 0 else 1.0 for s in scores]


def reciprocal_rank_fusion(
    legs: Sequence[LegResult],
    *,
    k: float = RRF_K,
    weights: Mapping[str, float] | None = None,
    score_gain: Mapping[str, float] | None = None,
    use_scores: bool = True,
) -> list[Fused]:
    """Fused ranking of every id the legs found; ties broken by best single rank, then id.

    A leg with scores (and ``use_scores``) contributes ``weight * (1 + gain * normalized
    score) / (k + rank)`` per posting; without, plain (weighted) RRF ``weight / (k + rank)``.
    """
    gains = SCORE_GAIN if score_gain is None else score_gain
    fused: dict[int, Fused] = {}
    for result in legs:
        leg = result.leg
        weight = 1.0 if weights is None else weights.get(leg, 1.0)
        norm = normalized_scores(leg, result.scores) if use_scores and result.scores else None
        for rank, job_id in enumerate(result.ids, start=1):
            item = fused.setdefault(job_id, Fused(job_id, 0.0))
            if leg in item.ranks:
                continue   # a list repeating an id counts it once, at its best rank
            item.ranks[leg] = rank
            if result.scores:
                item.leg_scores[leg] = result.scores[rank - 1]
            boost = 1.0 + gains.get(leg, 0.0) * norm[rank - 1] if norm is not None else 1.0
            item.score += weight * boost / (k + rank)
    return _ordered(fused.values())


def with_list(fused: Sequence[Fused], result: LegResult, *, k: float = RRF_K, weight: float = 1.0) -> list[Fused]:
    """``fused`` with one more unscored list's contributions, as if it had been fused with the legs.

    Only ids already in ``fused`` count (the list re-orders candidates, it adds none; the items
    are updated in place), so this
    equals ``reciprocal_rank_fusion`` over the legs plus ``result`` without walking the legs again.
    """
    index = {f.job_id: f for f in fused}
    for rank, job_id in enumerate(result.ids, start=1):
        item = index.get(job_id)
        if item is None or result.leg in item.ranks:
            continue
        item.ranks[result.leg] = rank
        item.score += weight / (k + rank)
    return _ordered(fused)


def _ordered(items: Iterable[Fused]) -> list[Fused]:
    """Best first; ties by the best single rank, then id."""
    return sorted(items, key=lambda f: (-f.score, min(f.ranks.values()), f.job_id))


def stated_list(leg: str, fused: Sequence[Fused], counts: Mapping[int, int]) -> LegResult:
    """The fused candidates that hold what the query states, those holding most first, then in fused order.

    A query that names a skill ("Flutter 开发工程师"), a level ("senior data scientist") or a
    place it is not filtered by ("上海 测试工程师" without a city filter) mostly wants postings
    whose normalized fields say so; both legs only approximate that (the vector leg by meaning,
    the keyword leg by words that may sit in a benefits line). Fused as one more list
    (:func:`with_list`) it lifts, among the candidates the legs found, those that hold it,
    without dropping the rest. ``counts``: how many of the statements each candidate holds
    (absent or 0: none). ``leg`` must be one of ``LEGS`` (``LegResult`` checks it).
    """
    held = [(-counts[item.job_id], position, item.job_id)
            for position, item in enumerate(fused) if counts.get(item.job_id)]
    return LegResult(leg, tuple(job_id for _, _, job_id in sorted(held)))

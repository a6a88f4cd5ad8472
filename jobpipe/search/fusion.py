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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60.0
#: How much a leg's own normalized score scales its RRF contribution.
SCORE_GAIN = {"keyword": 3.0, "vector": 1.0}


@dataclass
class Fused:
    job_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)   # leg name -> 1-based rank


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
    lists: Mapping[str, Sequence[int]],
    *,
    k: float = RRF_K,
    weights: Mapping[str, float] | None = None,
    scores: Mapping[str, Sequence[float]] | None = None,
    score_gain: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fused ranking of every id in ``lists``; ties broken by best single rank, then id.

    Without ``scores`` this is plain (weighted) RRF. With them, each leg's contribution is
    ``weight * (1 + gain * normalized score) / (k + rank)``.
    """
    gains = SCORE_GAIN if score_gain is None else score_gain
    fused: dict[int, Fused] = {}
    for leg, ids in lists.items():
        weight = 1.0 if weights is None else weights.get(leg, 1.0)
        leg_scores = scores.get(leg) if scores else None
        norm = normalized_scores(leg, leg_scores) if leg_scores is not None else None
        for rank, job_id in enumerate(ids, start=1):
            item = fused.setdefault(job_id, Fused(job_id, 0.0))
            if leg in item.ranks:
                continue   # a list repeating an id counts it once, at its best rank
            item.ranks[leg] = rank
            boost = 1.0 + gains.get(leg, 0.0) * norm[rank - 1] if norm is not None else 1.0
            item.score += weight * boost / (k + rank)
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), f.job_id))

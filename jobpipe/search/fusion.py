"""Reciprocal rank fusion: combine ranked lists by rank alone.

Vector distances and keyword scores live on unrelated scales; RRF ignores the scores and
gives each list ``weight / (k + rank)`` per posting, so a posting ranked well by both legs
beats one ranked first by only one. ``k`` damps the head of each list (60 is the value of
the original paper and works here; see docs/search.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60.0


@dataclass
class Fused:
    job_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)   # leg name -> 1-based rank


def reciprocal_rank_fusion(
    lists: Mapping[str, Sequence[int]], *, k: float = RRF_K, weights: Mapping[str, float] | None = None,
) -> list[Fused]:
    """Fused ranking of every id in ``lists``; ties broken by best single rank, then id."""
    fused: dict[int, Fused] = {}
    for leg, ids in lists.items():
        weight = 1.0 if weights is None else weights.get(leg, 1.0)
        for rank, job_id in enumerate(ids, start=1):
            item = fused.setdefault(job_id, Fused(job_id, 0.0))
            if leg in item.ranks:
                continue   # a list repeating an id counts it once, at its best rank
            item.ranks[leg] = rank
            item.score += weight / (k + rank)
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), f.job_id))

"""Reciprocal rank fusion, plain and score-aware (pure functions, no database)."""

from __future__ import annotations

import pytest

from jobpipe.search.fusion import normalized_scores, reciprocal_rank_fusion


def test_plain_rrf_prefers_agreement_and_matches_the_formula():
    fused = reciprocal_rank_fusion({"vector": [1, 2, 3], "keyword": [4, 2, 5]}, k=60)
    assert fused[0].job_id == 2
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 62)
    assert fused[0].ranks == {"vector": 2, "keyword": 2}
    assert [f.job_id for f in fused[1:3]] == [1, 4]   # tie on score: broken by rank, then id


def test_a_repeated_id_counts_once_at_its_best_rank():
    fused = reciprocal_rank_fusion({"keyword": [7, 8, 7]}, k=60)
    assert {f.job_id: f.ranks["keyword"] for f in fused} == {7: 1, 8: 2}


def test_weights_scale_each_leg():
    fused = reciprocal_rank_fusion({"vector": [1], "keyword": [2]}, k=60, weights={"vector": 0.5, "keyword": 1.0})
    assert [f.job_id for f in fused] == [2, 1]


def test_a_dominant_keyword_hit_keeps_its_lead_over_mediocre_agreement():
    lists = {"keyword": [1] + list(range(100, 109)) + [2], "vector": list(range(200, 209)) + [2]}
    scores = {"keyword": [20.0] + [3.0] * 9 + [2.5], "vector": [0.9] * 9 + [0.5]}
    plain = reciprocal_rank_fusion(lists, k=60)
    aware = reciprocal_rank_fusion(lists, k=60, scores=scores)
    assert plain[0].job_id == 2          # found by both legs at rank 10/11
    assert aware[0].job_id == 1          # 20 vs 3: the keyword leg is sure


def test_normalized_scores():
    assert normalized_scores("keyword", [4.0, 2.0, 0.0]) == [1.0, 0.5, 0.0]
    assert normalized_scores("vector", [0.9, 0.7, 0.5]) == pytest.approx([1.0, 0.5, 0.0])
    assert normalized_scores("vector", [0.8, 0.8]) == [1.0, 1.0]
    assert normalized_scores("keyword", []) == []

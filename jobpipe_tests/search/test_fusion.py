"""Reciprocal rank fusion, plain and score-aware, over the legs' typed results (no database)."""

from __future__ import annotations

import pytest

from jobpipe.search.fusion import LegResult, normalized_scores, reciprocal_rank_fusion, stated_list, with_list


def legs(**lists) -> list[LegResult]:
    return [LegResult(leg, tuple(ids)) for leg, ids in lists.items()]


def test_plain_rrf_prefers_agreement_and_matches_the_formula():
    fused = reciprocal_rank_fusion(legs(vector=[1, 2, 3], keyword=[4, 2, 5]), k=60)
    assert fused[0].job_id == 2
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 62)
    assert fused[0].ranks == {"vector": 2, "keyword": 2}
    assert [f.job_id for f in fused[1:3]] == [1, 4]   # tie on score: broken by rank, then id


def test_a_repeated_id_counts_once_at_its_best_rank():
    fused = reciprocal_rank_fusion(legs(keyword=[7, 8, 7]), k=60)
    assert {f.job_id: f.ranks["keyword"] for f in fused} == {7: 1, 8: 2}


def test_weights_scale_each_leg():
    fused = reciprocal_rank_fusion(legs(vector=[1], keyword=[2]), k=60, weights={"vector": 0.5, "keyword": 1.0})
    assert [f.job_id for f in fused] == [2, 1]


def test_a_dominant_keyword_hit_keeps_its_lead_over_mediocre_agreement():
    keyword = LegResult("keyword", (1, *range(100, 109), 2), (20.0,) + (3.0,) * 9 + (2.5,))
    vector = LegResult("vector", (*range(200, 209), 2), (0.9,) * 9 + (0.5,))
    plain = reciprocal_rank_fusion([keyword, vector], k=60, use_scores=False)
    aware = reciprocal_rank_fusion([keyword, vector], k=60)
    assert plain[0].job_id == 2          # found by both legs at rank 10/11
    assert aware[0].job_id == 1          # 20 vs 3: the keyword leg is sure


def test_each_fused_posting_carries_its_score_in_every_leg_that_found_it():
    fused = {f.job_id: f for f in reciprocal_rank_fusion([
        LegResult.of("vector", [(1, 0.8), (2, 0.6)]), LegResult.of("keyword", [(2, 9.5)])])}
    assert fused[2].leg_scores == {"vector": 0.6, "keyword": 9.5}
    assert fused[1].leg_scores == {"vector": 0.8}


def test_a_leg_result_names_a_known_leg_and_one_score_per_id():
    with pytest.raises(ValueError, match="unknown leg 'vectro'"):
        LegResult("vectro", (1,))
    with pytest.raises(ValueError, match="2 ids but 1 scores"):
        LegResult("keyword", (1, 2), (3.0,))


def test_normalized_scores():
    assert normalized_scores("keyword", [4.0, 2.0, 0.0]) == [1.0, 0.5, 0.0]
    assert normalized_scores("vector", [0.9, 0.7, 0.5]) == pytest.approx([1.0, 0.5, 0.0])
    assert normalized_scores("vector", [0.8, 0.8]) == [1.0, 1.0]
    assert normalized_scores("keyword", []) == []


def test_a_stated_list_puts_candidates_holding_more_first_then_keeps_the_fused_order():
    fused = reciprocal_rank_fusion(legs(vector=[1, 2, 3, 4, 5]), k=60)
    counts = {1: 1, 2: 0, 3: 2, 4: 1}   # 5: holds nothing
    assert stated_list("skills", fused, counts) == LegResult("skills", (3, 1, 4))
    assert stated_list("seniority", fused, {}) == LegResult("seniority", ())
    with pytest.raises(ValueError, match="unknown leg"):
        stated_list("mood", fused, counts)


def test_adding_a_list_equals_fusing_it_with_the_legs():
    base = legs(vector=[1, 2, 3, 9], keyword=[2, 1, 4])       # 1 and 2 tie
    extra = LegResult("skills", (4, 2, 7))                       # 7: no leg found it, so it stays out
    added = with_list(reciprocal_rank_fusion(base, k=60), extra, k=60, weight=0.5)
    whole = [f for f in reciprocal_rank_fusion([*base, extra], k=60, weights={"skills": 0.5}) if f.job_id != 7]
    assert [(f.job_id, f.ranks) for f in added] == [(f.job_id, f.ranks) for f in whole]
    assert [f.score for f in added] == pytest.approx([f.score for f in whole])
    assert [f.job_id for f in added][:2] == [2, 1]              # the holder wins the tie
    assert 7 not in {f.job_id for f in added}

"""The score's parts on hand-made jobs: skills weighted by rarity, seniority read asymmetrically."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from jobpipe.candidates import parse_resume
from jobpipe.candidates.scoring import (
    LEVELS,
    MAX_SKILL_WEIGHT,
    MIN_SKILL_WEIGHT,
    PARTS,
    CandidateFeatures,
    JobBatch,
    JobFeature,
    SkillWeights,
    rank,
    score_batch,
)
from jobpipe.candidates.store import RESUME_CHARS, embedding_text


def job(job_id: int, skills: list[str], *, level: str | None = None) -> JobFeature:
    return JobFeature(job_id=job_id, skills=tuple(skills), nice=frozenset(), cities=(), country=None, remote=None,
                      job_type=None, level=LEVELS.get(level or ""), experience_min=None, experience_max=None,
                      degree=None, salary_usd=None, salary_max=None, salary_currency=None, location_raw=None,
                      company=None, dedupe_key=None)


def candidate(skills: list[str], *, level: str | None = None) -> CandidateFeatures:
    return CandidateFeatures(candidate_id="c", skills=frozenset(skills), cities=(), countries=frozenset(), remote=None,
                             job_types=frozenset(), years=None, level=LEVELS.get(level or ""), salary_floor_usd=None)


def parts(cand: CandidateFeatures, jobs: list[JobFeature], weights: SkillWeights | None = None) -> dict[str, np.ndarray]:
    batch = JobBatch(jobs, weights)
    return score_batch(cand, batch, np.zeros(len(jobs)), 0.0)[1]


# 100 jobs: Excel in 90 of them, Sales in 60, FEA (finite element analysis) in 3
CORPUS = [["Excel"] * (i < 90) + ["Sales"] * (i < 60) + ["FEA"] * (i < 3) for i in range(100)]


def test_rarer_skills_weigh_more_and_an_average_one_weighs_about_one():
    w = SkillWeights.measure(CORPUS)
    assert w.of("FEA") > w.of("Sales") > w.of("Excel")
    assert w.of("never listed") == w.unseen >= w.of("FEA")
    listed = [s for skills in CORPUS for s in skills]
    assert sum(w.of(s) for s in listed) / len(listed) == pytest.approx(1.0, abs=0.25)
    assert all(MIN_SKILL_WEIGHT <= v <= MAX_SKILL_WEIGHT for v in w.weights.values())
    assert SkillWeights.from_json(w.as_json()) == w


def test_holding_the_rare_skill_of_a_job_counts_more_than_holding_the_common_one():
    w = SkillWeights.measure(CORPUS)
    jobs = [job(1, ["Excel", "FEA"])]
    rare, common = parts(candidate(["FEA"]), jobs, w)["skills"][0], parts(candidate(["Excel"]), jobs, w)["skills"][0]
    assert rare > 50 > common
    # without rarity both would be the same half of the job's skills
    assert parts(candidate(["FEA"]), jobs)["skills"][0] == parts(candidate(["Excel"]), jobs)["skills"][0]


def test_a_job_listing_only_common_skills_is_weak_evidence():
    w = SkillWeights.measure(CORPUS)
    got = parts(candidate(["Excel", "Sales", "FEA"]), [job(1, ["Excel", "Sales"]), job(2, ["FEA"])], w)["skills"]
    assert 50 < got[0] < got[1]          # all held in both; the common pair says less than the rare one


def test_overqualified_is_a_mild_concern_underqualified_a_poor_fit():
    jobs = [job(1, [], level="junior"), job(2, [], level="senior"), job(3, [], level="director")]
    senior = parts(candidate([], level="senior"), jobs)["experience"]
    assert senior[1] == 100.0
    assert senior[0] > senior[2]         # two levels over the job beats two or more levels under it
    assert 50 < senior[0] < 100 and senior[2] < 50


def test_the_embedding_text_reads_the_work_history_past_the_resume_head():
    filler = "\n".join(f"Coursework line {i}: statics, dynamics, thermodynamics" for i in range(40))
    text = ("Jane Q. Example\njane@example.org | +1 415 555 0100 | linkedin.com/in/janeqexample\n"
            f"Mechanical Engineer\nEducation\n{filler}\nExperience\n"
            "2015 - present Design engineer: finite element analysis of gearbox housings in ANSYS")
    profile = parse_resume("jq", text, ("Jane Q. Example",))
    emb = embedding_text(profile)
    assert len(text) > 1500 and "finite element analysis of gearbox housings" in emb
    assert len(emb) <= RESUME_CHARS + 1000
    for secret in ("Jane", "Example", "jane@", "555", "linkedin", "[email]", "[phone]", "[link]", "[name]"):
        assert secret not in emb


@pytest.mark.parametrize("arrival", [("board", "site"), ("site", "board")])
def test_equal_scores_keep_the_same_copy_of_a_duplicate_group_whatever_order_the_postings_arrived_in(arrival):
    # job ids follow arrival order: a store that fetched the career site first numbers it first
    copies = {name: dataclasses.replace(job(job_id, ["Python"]), dedupe_key="acme|ml engineer",
                                        identity=f"acme-{name}\x1f{name.upper()}-1")
              for job_id, name in enumerate(arrival, start=1)}
    other = dataclasses.replace(job(9, ["Go"]), identity="acme-board\x1fZ-9")
    batch = JobBatch([*copies.values(), other])
    rows = np.arange(3)
    scores = np.array([70.0, 70.0, 70.0])
    parts = {name: np.zeros(3) for name in PARTS}
    ranked = rank(batch, rows, scores, parts, np.zeros(3), depth=10)
    assert [r.feature.identity for r in ranked] == ["acme-board\x1fBOARD-1", "acme-board\x1fZ-9"]


def test_fit_parts_refine_the_order_but_cannot_lift_a_distant_job_over_a_close_one():
    """The semantic part is the only one that knows the occupation: a job 40 points further away
    that fits on every other part (all skills held, the level, the city, remote) must still rank
    below a close job that states nothing else. With the old weights (semantic 0.40) it ranked
    above it: fit parts made most of the wrong entries of the quality bench's top 10s."""
    distant = dataclasses.replace(job(1, ["Python", "SQL"], level="senior"), remote="remote")
    close = job(2, [])
    cand = dataclasses.replace(candidate(["Python", "SQL"], level="senior"), remote=True)
    batch = JobBatch([distant, close])
    scores, got = score_batch(cand, batch, np.array([0.2, 0.6]), 0.0)   # semantic 20 and 60
    assert got["skills"][0] > 50 and got["experience"][0] == 100 and got["location"][0] == 100
    assert scores[1] > scores[0]
    # among equally close jobs the fit parts still decide
    scores, _ = score_batch(cand, batch, np.array([0.6, 0.6]), 0.0)
    assert scores[0] > scores[1]

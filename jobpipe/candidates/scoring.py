"""The match score: six parts, each 0-100, and their weights (docs/candidates.md "Scores").

    score = 0.60 semantic + 0.20 skills + 0.07 experience + 0.07 location + 0.03 job_type + 0.03 salary

Each part is 100 for a confirmed fit, 0 for a confirmed mismatch and 50 where either side does
not say (a job without a salary, a resume without a location): missing data neither wins nor
loses a job its place.

* **semantic**: the cosine similarity of the candidate and job vectors, rescaled so that the
  5th percentile of random posting pairs of the model is 0 and the 99.9th is 100 (both measured
  per model and frozen: ``matching.calibrate``). Models differ widely in their raw cosines (0.1
  vs 0.8 for unrelated texts); the rescaling makes the part mean the same across them, and its
  anchors lie outside the similarities of a candidate's pool, so the part orders the whole pool
  instead of clipping its ends to ties. It is the only part that knows the occupation, hence
  the largest weight: the fit parts refine the order among relevant jobs and must not lift
  distant ones (the weights were chosen on the dev split of the quality bench).
* **skills**: the share of the job's skills the candidate has, each skill weighted by its rarity
  among the open jobs (``skill_weights``: "Excel" or "Sales", listed by many postings, says less
  about a fit than "Finite Element Analysis"), a nice-to-have skill (one the posting names as
  "a plus" / "preferred" / "加分" / "优先") counting half a required one, shrunk towards 50 as if
  the job listed two more skills of average weight, one of them held (``SKILL_PRIOR``): a job
  naming a single skill, or only common ones, is weak evidence either way.
* **experience**: the years the job asks for against the years of the candidate's work history
  (100 from the minimum up; below it falling to 0 at half the minimum or two years short; a little
  off for more than three years over a stated maximum), averaged with the seniority distance
  and the degree (held at least the one asked for 100, one level short 50, more 0), each where
  both sides state it. Seniority is asymmetric, as recruiters read it: a candidate below the
  job's level is a poor fit (one level 60, two 25, more 0), one above it a mild concern
  (one level 85, two 70, more 55).
* **location**: 100 in one of the candidate's cities, or remote where the candidate is open to
  it; 40 in another city of the same country; 0 elsewhere (or a remote job for a candidate
  who does not want one).
* **job_type**: 100 when the job's type is one the candidate wants, 50 between full-time and
  campus hiring, else 0.
* **salary**: 100 when the job's annual maximum reaches the candidate's floor (currencies
  converted approximately), falling linearly to 0 at 60% of it.

Everything is vectorized over a batch of jobs with numpy, so a full build (one candidate
against its vector pool) and a nightly refresh (every candidate against the changed jobs)
run the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jobpipe.normalize.job_type import JOB_TYPES
from jobpipe.search.types import fx_rates

WEIGHTS: dict[str, float] = {
    "semantic": 0.60, "skills": 0.20, "experience": 0.07, "location": 0.07, "job_type": 0.03, "salary": 0.03,
}
PARTS = tuple(WEIGHTS)
UNKNOWN = 50.0
#: How much a nice-to-have skill counts against a required one.
NICE_WEIGHT = 0.5
#: The skills share is taken as if the job listed this many more skills, half of them held:
#: one listed skill is weak evidence ("Sales" alone says little about a job), so a job naming
#: one skill the candidate has scores 67, not 100, and one naming ten of which eight are held
#: scores 75 (80 unshrunk). Corpus-independent, so a night's partial scores equal a rebuild's.
SKILL_PRIOR = 2.0
#: Bounds of a skill's rarity weight (1 = a skill as common as the average listed one).
MIN_SKILL_WEIGHT = 0.2
MAX_SKILL_WEIGHT = 3.0
#: Seniority levels on one scale (the normalizer's vocabulary).
LEVELS = {"intern": 0, "junior": 1, "mid": 2, "senior": 3, "lead": 4, "staff": 4, "manager": 4, "principal": 5,
          "director": 6}
_UNDER_FIT = np.array([100.0, 60.0, 25.0, 0.0], dtype=np.float32)   # candidate 0, 1, 2, 3+ levels below the job
_OVER_FIT = np.array([100.0, 85.0, 70.0, 55.0], dtype=np.float32)   # ... above it: overqualified, a mild concern
#: Degrees on one scale (the normalizer's vocabulary, lowest first).
DEGREE_LEVELS = {"high_school": 0, "associate": 1, "bachelor": 2, "master": 3, "phd": 4}
_DEGREE_FIT = np.array([100.0, 50.0, 0.0], dtype=np.float32)   # 0, 1, 2+ levels below what the job asks
_REMOTE_CODES = {"remote": 1, "hybrid": 2, "onsite": 3}
_TYPE_CODES = {t: i + 1 for i, t in enumerate(JOB_TYPES)}


def _fx() -> dict[str, float]:
    return fx_rates()


def to_usd(amount: float | None, currency: str | None) -> float | None:
    """An annual amount in USD (approximate rates: filtering and fit only), None when unknown."""
    if amount is None or currency is None:
        return None
    rate = _fx().get(currency.upper())
    return None if rate is None else float(amount) * rate


@dataclass(frozen=True)
class SkillWeights:
    """Each skill's weight in the skills part: its inverse document frequency among the open jobs,
    divided by the mean over all listed skills (so an average skill weighs 1), within
    [``MIN_SKILL_WEIGHT``, ``MAX_SKILL_WEIGHT``]. A skill no job listed when they were measured
    weighs ``unseen`` (as rare as it gets).

    Frozen per model with its similarity floor (``match_calibration``): were they measured again
    every night, a nightly partial refresh would score tonight's jobs on another scale than the
    entries it keeps, and no longer equal a full rebuild.
    """

    weights: dict[str, float] = field(default_factory=dict)
    unseen: float = 1.0

    @classmethod
    def uniform(cls) -> SkillWeights:
        """Every skill alike (too few jobs to measure rarity)."""
        return cls({}, 1.0)

    @classmethod
    def measure(cls, job_skills: Sequence[Sequence[str]]) -> SkillWeights:
        """Weights from the skill lists of the open jobs (one list per job)."""
        n = len(job_skills)
        df: dict[str, int] = {}
        for skills in job_skills:
            for s in set(skills):
                df[s] = df.get(s, 0) + 1
        if not df:
            return cls.uniform()
        idf = {s: float(np.log((n + 1) / (f + 1))) for s, f in df.items()}
        listed = sum(df.values())
        mean = sum(idf[s] * f for s, f in df.items()) / listed
        if mean <= 0:
            return cls.uniform()

        def bounded(x: float) -> float:
            return round(float(np.clip(x / mean, MIN_SKILL_WEIGHT, MAX_SKILL_WEIGHT)), 4)

        return cls({s: bounded(v) for s, v in sorted(idf.items())}, bounded(float(np.log(n + 1))))

    def of(self, skill: str) -> float:
        return self.weights.get(skill, self.unseen) if self.weights else self.unseen

    def as_json(self) -> dict[str, Any]:
        return {"weights": self.weights, "unseen": self.unseen}

    @classmethod
    def from_json(cls, value: dict[str, Any] | None) -> SkillWeights:
        if not value:
            return cls.uniform()
        return cls({str(k): float(v) for k, v in (value.get("weights") or {}).items()}, float(value.get("unseen", 1.0)))


@dataclass
class JobFeature:
    """What scoring reads of one job (built once per job from the read model)."""

    job_id: int
    skills: tuple[str, ...]
    nice: frozenset[str]
    cities: tuple[str, ...]
    country: str | None
    remote: str | None
    job_type: str | None
    level: int | None
    experience_min: float | None
    experience_max: float | None
    degree: int | None                # the lowest degree the job asks for, on ``DEGREE_LEVELS``
    salary_usd: float | None          # annual maximum, converted
    salary_max: float | None          # annual maximum as stated (filters compare in its currency)
    salary_currency: str | None
    location_raw: str | None
    company: str | None
    dedupe_key: str | None
    #: The posting's identity (source, external id): ties in score go by it, not by ``job_id``,
    #: which follows arrival order -- so which copy of a duplicate group a list keeps, and the
    #: order of equal scores, is the same on every store holding the same postings.
    identity: str = ""


@dataclass
class CandidateFeatures:
    """What scoring reads of one candidate: the profile with explicit preferences applied."""

    candidate_id: str
    skills: frozenset[str]
    cities: tuple[str, ...]
    countries: frozenset[str]
    remote: bool | None
    job_types: frozenset[str]
    years: float | None
    level: int | None
    salary_floor_usd: float | None
    degree: int | None = None         # the highest degree held, on ``DEGREE_LEVELS``


class JobBatch:
    """Jobs as arrays, for scoring many at once against one candidate (or many)."""

    def __init__(self, jobs: Sequence[JobFeature], weights: SkillWeights | None = None):
        self.jobs = list(jobs)
        weights = weights or SkillWeights.uniform()
        n = len(self.jobs)
        self.job_ids = np.fromiter((j.job_id for j in self.jobs), dtype=np.int64, count=n)
        self.identity = np.array([j.identity for j in self.jobs], dtype=str)
        self.vocab: dict[str, int] = {}
        for j in self.jobs:
            for s in j.skills:
                self.vocab.setdefault(s, len(self.vocab))
        v = max(1, len(self.vocab))
        self.required = np.zeros((n, v), dtype=np.float32)
        self.nice = np.zeros((n, v), dtype=np.float32)
        for i, j in enumerate(self.jobs):
            for s in j.skills:
                (self.nice if s in j.nice else self.required)[i, self.vocab[s]] = weights.of(s)
        self.n_required = self.required.sum(axis=1)
        self.n_nice = self.nice.sum(axis=1)
        self.city_slots: dict[str, np.ndarray] = {}
        self.no_cities = np.fromiter((not j.cities for j in self.jobs), dtype=bool, count=n)
        self.countries = [j.country for j in self.jobs]
        self.remote = np.fromiter((_REMOTE_CODES.get(j.remote or "", 0) for j in self.jobs), dtype=np.int8, count=n)
        self.job_type = np.fromiter((_TYPE_CODES.get(j.job_type or "", 0) for j in self.jobs), dtype=np.int8, count=n)
        self.level = np.fromiter((-1 if j.level is None else j.level for j in self.jobs), dtype=np.int8, count=n)
        self.exp_min = np.fromiter((np.nan if j.experience_min is None else j.experience_min for j in self.jobs),
                                   dtype=np.float32, count=n)
        self.degree = np.fromiter((-1 if j.degree is None else j.degree for j in self.jobs), dtype=np.int8, count=n)
        self.exp_max = np.fromiter((np.nan if j.experience_max is None else j.experience_max for j in self.jobs),
                                   dtype=np.float32, count=n)
        self.salary_usd = np.fromiter((np.nan if j.salary_usd is None else j.salary_usd for j in self.jobs),
                                      dtype=np.float64, count=n)
        self.salary_max = np.fromiter((np.nan if j.salary_max is None else j.salary_max for j in self.jobs),
                                      dtype=np.float64, count=n)
        self.salary_currency = np.array([j.salary_currency or "" for j in self.jobs], dtype=object)
        rates = _fx()
        self.salary_rate = np.fromiter((rates.get(j.salary_currency or "", np.nan) for j in self.jobs),
                                       dtype=np.float64, count=n)   # to USD; NaN: no or an unknown currency
        self._cities_index: dict[str, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.jobs)

    def take(self, rows: np.ndarray) -> JobBatch:
        """The jobs at ``rows`` as a batch of their own (same skill columns and weights): a night's
        refresh scores each candidate only on the changed jobs that could enter its list."""
        sub = object.__new__(JobBatch)
        sub.jobs = [self.jobs[int(i)] for i in rows]
        sub.vocab = self.vocab
        for name in ("job_ids", "identity", "required", "nice", "n_required", "n_nice", "no_cities", "remote", "job_type",
                     "level", "exp_min", "degree", "exp_max", "salary_usd", "salary_max", "salary_currency",
                     "salary_rate"):
            setattr(sub, name, getattr(self, name)[rows])
        sub.city_slots = {}
        sub.countries = [self.countries[int(i)] for i in rows]
        sub._cities_index = None
        return sub

    def in_cities(self, cities: Sequence[str]) -> np.ndarray:
        """Jobs located in any of ``cities`` (canonical names)."""
        if self._cities_index is None:
            index: dict[str, list[int]] = {}
            for i, j in enumerate(self.jobs):
                for c in j.cities:
                    index.setdefault(c, []).append(i)
            self._cities_index = {c: np.array(rows, dtype=np.int64) for c, rows in index.items()}
        out = np.zeros(len(self.jobs), dtype=bool)
        for c in cities:
            rows = self._cities_index.get(c)
            if rows is not None:
                out[rows] = True
        return out

    def in_countries(self, countries: frozenset[str]) -> np.ndarray:
        return np.fromiter((c in countries for c in self.countries), dtype=bool, count=len(self.jobs))

    def skill_vector(self, skills: frozenset[str]) -> np.ndarray:
        h = np.zeros(self.required.shape[1], dtype=np.float32)
        for s in skills:
            col = self.vocab.get(s)
            if col is not None:
                h[col] = 1.0
        return h

    def skill_matrix(self, candidates: Sequence[CandidateFeatures]) -> np.ndarray:
        h = np.zeros((len(candidates), self.required.shape[1]), dtype=np.float32)
        for r, cand in enumerate(candidates):
            for s in cand.skills:
                col = self.vocab.get(s)
                if col is not None:
                    h[r, col] = 1.0
        return h


def semantic_part(similarity: np.ndarray, floor: float, ceiling: float = 1.0) -> np.ndarray:
    span = max(1e-6, ceiling - floor)
    return np.clip((similarity - floor) / span, 0.0, 1.0) * 100.0


def score_batch(cand: CandidateFeatures, batch: JobBatch, similarity: np.ndarray, floor: float, *,
                ceiling: float = 1.0, matched: tuple[np.ndarray, np.ndarray] | None = None
                ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(scores, parts) of every job of ``batch`` for ``cand``; ``similarity`` is per job (cosine),
    0 at ``floor`` and 100 at ``ceiling`` (the model's calibration).

    ``matched``: the candidate's (required, nice) skill counts per job when the caller computed
    them for many candidates at once (one matrix product).
    """
    n = len(batch)
    parts: dict[str, np.ndarray] = {"semantic": semantic_part(similarity.astype(np.float64), floor, ceiling)}

    # skills
    if not cand.skills:
        parts["skills"] = np.full(n, UNKNOWN)
    else:
        if matched is None:
            h = batch.skill_vector(cand.skills)
            matched = (batch.required @ h, batch.nice @ h)
        m_req, m_nice = matched
        denominator = batch.n_required + NICE_WEIGHT * batch.n_nice
        with np.errstate(invalid="ignore", divide="ignore"):
            share = (m_req + NICE_WEIGHT * m_nice + SKILL_PRIOR * UNKNOWN / 100.0) / (denominator + SKILL_PRIOR) * 100.0
        parts["skills"] = np.where(denominator > 0, share, UNKNOWN)

    # experience: years against the job's range, and the seniority distance
    years_fit = np.full(n, np.nan)
    if cand.years is not None:
        y = float(cand.years)
        lo, hi = batch.exp_min.astype(np.float64), batch.exp_max.astype(np.float64)
        scale = np.maximum(2.0, lo * 0.5)
        below = np.clip(1.0 - (lo - y) / scale, 0.0, 1.0) * 100.0
        over = np.clip(100.0 - 15.0 * (y - hi - 3.0), 40.0, 100.0)
        fit = np.where(np.isnan(lo), np.nan, np.where(y >= lo, 100.0, below))
        fit = np.where(~np.isnan(hi) & (y > hi + 3.0), np.fmin(np.nan_to_num(fit, nan=100.0), over), fit)
        years_fit = fit
    level_fit = np.full(n, np.nan)
    if cand.level is not None:
        known = batch.level >= 0
        gap = cand.level - batch.level.astype(np.int16)           # > 0: the candidate is above the job's level
        fit = np.where(gap >= 0, _OVER_FIT[np.minimum(np.abs(gap), 3)], _UNDER_FIT[np.minimum(np.abs(gap), 3)])
        level_fit = np.where(known, fit, np.nan)
    degree_fit = np.full(n, np.nan)
    if cand.degree is not None:
        short = np.clip(batch.degree.astype(np.int16) - cand.degree, 0, 2)
        degree_fit = np.where(batch.degree >= 0, _DEGREE_FIT[short], np.nan)
    both = np.stack([years_fit, level_fit, degree_fit])
    with np.errstate(invalid="ignore"):
        counted = (~np.isnan(both)).sum(axis=0)
        experience = np.where(counted > 0, np.nansum(both, axis=0) / np.maximum(counted, 1), UNKNOWN)
    parts["experience"] = experience

    # location
    remote_job = batch.remote == 1
    location = np.full(n, UNKNOWN)
    if cand.cities:
        in_city = batch.in_cities(cand.cities)
        same_country = batch.in_countries(cand.countries) if cand.countries else np.zeros(n, dtype=bool)
        location = np.where(batch.no_cities, UNKNOWN, np.where(in_city, 100.0, np.where(same_country, 40.0, 0.0)))
    if cand.remote is False:
        location = np.where(remote_job, 0.0, location)
    else:
        location = np.where(remote_job, 100.0, location)
    parts["location"] = location

    # job type
    if cand.job_types:
        wanted = np.zeros(len(JOB_TYPES) + 1, dtype=np.float64)
        for t in cand.job_types:
            wanted[_TYPE_CODES[t]] = 100.0
        if "full_time" in cand.job_types and "campus" not in cand.job_types:
            wanted[_TYPE_CODES["campus"]] = 50.0
        if "campus" in cand.job_types and "full_time" not in cand.job_types:
            wanted[_TYPE_CODES["full_time"]] = 50.0
        wanted[0] = UNKNOWN
        parts["job_type"] = wanted[batch.job_type]
    else:
        parts["job_type"] = np.full(n, UNKNOWN)

    # salary
    if cand.salary_floor_usd:
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = batch.salary_usd / cand.salary_floor_usd
        fit = np.clip((ratio - 0.6) / 0.4, 0.0, 1.0) * 100.0
        parts["salary"] = np.where(np.isnan(batch.salary_usd), UNKNOWN, fit)
    else:
        parts["salary"] = np.full(n, UNKNOWN)

    scores = np.zeros(n, dtype=np.float64)
    for name, weight in WEIGHTS.items():
        scores += weight * parts[name]
    return scores, parts


def explain_skills(cand: CandidateFeatures, job: JobFeature) -> dict[str, list[str]]:
    """Which of the job's skills the candidate has and lacks, required and nice-to-have apart."""
    required = [s for s in job.skills if s not in job.nice]
    nice = [s for s in job.skills if s in job.nice]
    return {
        "matched_skills": [s for s in required if s in cand.skills],
        "missing_skills": [s for s in required if s not in cand.skills],
        "matched_nice": [s for s in nice if s in cand.skills],
        "missing_nice": [s for s in nice if s not in cand.skills],
    }


@dataclass
class Ranked:
    """One scored job of a candidate's list."""

    feature: JobFeature
    score: float
    similarity: float
    parts: dict[str, float] = field(default_factory=dict)

    def explained(self, cand: CandidateFeatures) -> dict[str, Any]:
        return explain_skills(cand, self.feature)


def rank(batch: JobBatch, rows: np.ndarray, scores: np.ndarray, parts: dict[str, np.ndarray],
         similarity: np.ndarray, depth: int) -> list[Ranked]:
    """The best ``depth`` of ``rows`` (indices into ``batch``), one per duplicate group, best first."""
    if len(rows) == 0:
        return []
    order = rows[np.lexsort((batch.job_ids[rows], batch.identity[rows], -np.round(scores[rows], 4)))]
    out: list[Ranked] = []
    groups: set[str] = set()
    for i in order:
        job = batch.jobs[int(i)]
        if job.dedupe_key is not None:
            if job.dedupe_key in groups:
                continue
            groups.add(job.dedupe_key)
        out.append(Ranked(job, float(scores[i]), float(similarity[i]),
                          {name: float(parts[name][i]) for name in PARTS}))
        if len(out) >= depth:
            break
    return out

"""The hand labels of bench/labels/normalize_accuracy.jsonl stay well-formed (no ../shared needed).

A label the normalizer could never produce (a misspelt city, a skill outside the taxonomy, a
vocabulary typo) would count as a miss forever; a long reason would be copied posting text.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from jobpipe.normalize import known_cities
from jobpipe.normalize.experience import DEGREES
from jobpipe.normalize.job_type import JOB_TYPES, SENIORITIES
from jobpipe.normalize.salary import KNOWN_CURRENCIES, PERIODS
from jobpipe.normalize.skills import all_skills

LABELS = Path(__file__).resolve().parents[2] / "bench" / "labels" / "normalize_accuracy.jsonl"


@pytest.fixture(scope="module")
def labels() -> list[dict]:
    return [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_set_is_large_and_ids_are_unique(labels: list[dict]) -> None:
    ids = [lab["id"] for lab in labels]
    assert len(ids) >= 300 and len(set(ids)) == len(ids)
    assert {lab["origin"] for lab in labels} >= {"rebase", "bili", "zhilian", "google", "gd", "51job", "lagou", "api"}


def test_holdout_is_the_hash_rule(labels: list[dict]) -> None:
    for lab in labels:
        holdout = int(hashlib.sha1(lab["id"].encode("utf-8")).hexdigest(), 16) % 10 < 3
        assert lab["split"] == ("holdout" if holdout else "dev"), lab["id"]


def test_every_value_is_one_the_schema_can_hold(labels: list[dict]) -> None:
    cities, skills = known_cities(), set(all_skills())
    for lab in labels:
        where = lab["id"]
        salary = lab["salary"]
        if isinstance(salary, dict):
            assert salary["period"] in PERIODS, where
            assert salary["currency"] is None or salary["currency"] in KNOWN_CURRENCIES, where
            assert salary["min"] is not None or salary["max"] is not None, where
            if salary["min"] is not None and salary["max"] is not None:
                assert salary["min"] <= salary["max"], where
            assert salary["months"] is None or 12 <= salary["months"] <= 24, where
        else:
            assert salary in (None, "*"), where
        assert lab["cities"] == "*" or all(c in cities for c in lab["cities"]), where
        assert lab["country"] in (None, "*") or re.fullmatch(r"[A-Z]{2}", lab["country"]), where
        assert lab["remote"] in ("remote", "hybrid", "onsite", "unstated", "*"), where
        assert lab["job_type"] in (*JOB_TYPES, None, "*"), where
        assert lab["seniority"] in (*SENIORITIES, None, "*"), where
        assert lab["degree"] in (*DEGREES, None, "*"), where
        experience = lab["experience"]
        if isinstance(experience, list):
            low, high = experience
            assert 0 <= low <= 40 and (high is None or low <= high <= 40), where
        else:
            assert experience in (None, "*"), where
        assert set(lab["skills_yes"]) <= skills and set(lab["skills_no"]) <= skills, where
        assert not set(lab["skills_yes"]) & set(lab["skills_no"]), where


def test_reasons_are_one_line_not_copied_text(labels: list[dict]) -> None:
    for lab in labels:
        assert lab["reason"] and "\n" not in lab["reason"] and len(lab["reason"]) <= 200, lab["id"]

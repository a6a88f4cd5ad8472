"""Skill families: the narrower skills a broader one stands for in ranking (data/skill_families.yaml)."""

from __future__ import annotations

import pytest

from jobpipe.normalize.skills import all_skills
from jobpipe.search import families


def test_a_family_holds_itself_and_its_narrower_skills_transitively():
    assert {"Smart Contracts", "Solidity"} <= families.counts_for("Smart Contracts")
    assert {"Deep Learning", "PyTorch"} <= families.counts_for("Machine Learning")      # through Deep Learning
    assert "Solidity" in families.counts_for("Blockchain")                              # through Smart Contracts
    assert families.counts_for("Java") == frozenset({"Java"})                           # no family: itself


def test_every_name_in_the_data_is_a_canonical_skill():
    known = set(all_skills())
    for broader in families._families():
        assert families.counts_for(broader) <= known


def test_a_name_the_taxonomy_does_not_know_is_refused(tmp_path, monkeypatch):
    bad = tmp_path / "families.yaml"
    bad.write_text("Backend: [Spring, Sprnig]\n", encoding="utf-8")
    monkeypatch.setattr(families, "DATA_FILE", bad)
    families._families.cache_clear()
    try:
        with pytest.raises(ValueError, match="Sprnig not a canonical skill"):
            families.counts_for("Backend")
    finally:
        families._families.cache_clear()


def test_listed_skills_gain_every_broader_skill_they_count_for():
    held = families.with_families(["Solidity", "Java"])
    assert {"Solidity", "Java", "Smart Contracts", "Blockchain"} <= held
    assert "Backend" not in held                      # Java is in no family
    assert families.with_families([]) == frozenset()

"""Broader skills a listed one stands for, in ranking: a Solidity posting holds "Smart Contracts".

A query naming a family of work ("智能合约工程师", "后端开发", "machine learning") wants the postings
that list one of its tools as well as those naming the family itself; the normalizer stores what
a posting names, so the family is read here, at query time (``data/skill_families.yaml``). Only
the ranking uses it (``jobpipe.search.core``'s skills list); the skills filter keeps meaning "the
posting lists this skill".
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import yaml

from jobpipe.normalize.skills import all_skills

DATA_FILE = Path(__file__).resolve().parent / "data" / "skill_families.yaml"


@lru_cache(maxsize=1)
def _families() -> dict[str, frozenset[str]]:
    """Broader skill -> every skill that counts for it (itself, and the narrower ones, transitively)."""
    data = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8")) or {}
    known = set(all_skills())
    direct: dict[str, set[str]] = {}
    for broader, narrower in data.items():
        names = [str(broader), *(str(n) for n in narrower or [])]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"{DATA_FILE.name}: {', '.join(unknown)} not a canonical skill of the taxonomy")
        direct.setdefault(str(broader), set()).update(names[1:])
    closed: dict[str, frozenset[str]] = {}

    def members(skill: str, seen: frozenset[str]) -> set[str]:
        out = {skill}
        for child in direct.get(skill, ()):
            if child not in seen:
                out |= members(child, seen | {child})
        return out

    for broader in direct:
        closed[broader] = frozenset(members(broader, frozenset({broader})))
    return closed


def counts_for(skill: str) -> frozenset[str]:
    """The skills whose listing counts as holding ``skill``: itself and its family's narrower ones."""
    return _families().get(skill, frozenset({skill}))


@lru_cache(maxsize=1)
def _broader() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for broader, members in _families().items():
        for member in members:
            if member != broader:
                out.setdefault(member, set()).add(broader)
    return {k: frozenset(v) for k, v in out.items()}


def with_families(skills: Iterable[str]) -> frozenset[str]:
    """``skills`` and every broader skill one of them counts for (Solidity: Smart Contracts, Blockchain)."""
    held = set(skills)
    table = _broader()
    for skill in list(held):
        held |= table.get(skill, frozenset())
    return frozenset(held)

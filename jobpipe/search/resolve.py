"""Filter values as users type them -> the canonical values stored in ``jobs``.

Search must resolve a filter exactly the way postings were normalized, so these are the
normalizer's own tables (``jobpipe.normalize``), cached per value: a query repeats the
same few city and skill names, and the normalizer's readers are built for whole postings.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from jobpipe import normalize

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


@functools.lru_cache(maxsize=4096)
def resolve_city(name: str) -> str | None:
    """Canonical English city name for ``name`` in Chinese or English; None when unknown."""
    return normalize.resolve_city(name) if name and name.strip() else None


def city_aliases(canonical: str) -> list[str]:
    """Names that refer to ``canonical``, folded (for stripping them from a query already filtered on it)."""
    return sorted({canonical.lower(), *(_fold(a) for a in normalize.city_aliases(canonical))})


@functools.lru_cache(maxsize=4096)
def canonical_skill(name: str) -> str | None:
    """The taxonomy's canonical skill name, or None when the normalizer does not know it."""
    return normalize.canonical_skill(name) if name.strip() else None


def skill_synonyms() -> dict[str, tuple[str, ...]]:
    """Canonical skill -> the names that always mean it, folded (the normalizer's taxonomy)."""
    return normalize.skill_synonyms()


@functools.lru_cache(maxsize=1)
def bilingual_city_names() -> dict[str, str]:
    """Folded name -> canonical city, for the cities the table names in Chinese as well as English.

    These are the curated, well-known cities (the bulk gazetteer has English names only): the
    keyword leg expands a query's city word to its other language's names with them.
    """
    names: dict[str, str] = {}
    for city in sorted(normalize.known_cities()):
        aliases = normalize.city_aliases(city)
        if any(_CJK_CHAR.search(a) for a in aliases):
            for alias in aliases:
                names.setdefault(_fold(alias), city)
    return names

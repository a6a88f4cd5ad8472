"""Tokens for PostgreSQL full-text search, for Chinese and English alike.

PostgreSQL has no Chinese parser, so text is segmented here (jieba, search mode, which also
emits the sub-words of long words: 工程师 -> 工程, 工程师) and stored as space-separated
tokens; the database indexes them with the ``simple`` configuration. Queries go through the
same function, so both sides agree on what a token is. Traditional characters are read as
simplified ones first (``jobpipe.text.traditional``: 智能合約 -> 智能合约), so a posting from Taiwan or
Hong Kong and a query in simplified characters share their words, and jieba's dictionary, keyed by
simplified forms, segments both alike.
"""

from __future__ import annotations

import re
import unicodedata

import rjieba

from jobpipe.text.traditional import to_simplified

# Latin tokens keep the characters that make tech names distinct: c++, c#, node.js, .net
_LATIN = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SPLIT = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
# Single CJK characters that carry no meaning for retrieval.
_CJK_STOP = frozenset("的了和与及或在是有等对为将把被从而也都就")
#: A number written with thousands separators: 1-3 digits, then groups of exactly three digits
#: behind one separator used throughout (``8,000``, ``1,250,000``, Swiss ``10'000``; full-width
#: forms arrive as these through NFKC). Postings and queries write the same amount as ``$8,000``,
#: ``8000`` or ``8k``; read digit group by digit group, ``8,000`` was the tokens ``8`` and ``000``,
#: which matched neither ``8000`` nor each other's meaning. A decimal comma (``2,5``), a group of
#: another width (``12,34``) and dotted or spaced groups (``8.000``, ``8 000``: a version, a date,
#: two numbers) are left as they are.
_GROUPED = re.compile(r"(?<![\d.])(?<!\d[,'])\d{1,3}(?:([,'])\d{3})(?:\1\d{3})*(?![\d]|[,']\d)")
#: Cheap test for whether ``_GROUPED`` can match at all: most texts have no grouped number, and
#: the full pattern over every description would cost about a third of tokenizing.
_GROUP_HINT = re.compile(r"[,']\d{3}")
_EN_STOP = frozenset(
    "a an and are as at be by for from has have in is it of on or that the this to with we you our your will".split()
)


def _ungroup(match: re.Match[str]) -> str:
    return match.group(0).replace(match.group(1), "")


def tokenize(text: str | None, *, search_forms: bool = True) -> list[str]:
    """Lowercased tokens of ``text``: jieba words for Chinese runs, words for the rest.

    The search forms: a number with thousands separators is one token, as if written without
    them, and traditional characters are folded to simplified ones. ``search_forms=False``
    keeps the text as written (digit groups apart, traditional characters), for callers whose
    stored output must never change, such as the token-hash embedder.
    """
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text).lower()
    if search_forms:
        if _GROUP_HINT.search(text):
            text = _GROUPED.sub(_ungroup, text)
        text = to_simplified(text)
    tokens: list[str] = []
    for part in _SPLIT.split(text):
        if not part:
            continue
        if _CJK.fullmatch(part):
            for word in rjieba.cut_for_search(part):
                if word and word not in _CJK_STOP:
                    tokens.append(word)
        else:
            for word in _LATIN.findall(part):
                word = word.strip(".-")
                if word and word not in _EN_STOP:
                    tokens.append(word)
    return tokens


def search_tokens(text: str | None) -> str:
    """``tokenize`` joined by spaces, as stored in ``jobs.search_tokens``.

    Characters that ``to_tsvector``/``to_tsquery`` treat specially never survive tokenizing.
    """
    return " ".join(tokenize(text))

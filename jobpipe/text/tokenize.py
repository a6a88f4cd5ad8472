"""Tokens for PostgreSQL full-text search, for Chinese and English alike.

PostgreSQL has no Chinese parser, so text is segmented here (jieba, search mode, which also
emits the sub-words of long words: 工程师 -> 工程, 工程师) and stored as space-separated
tokens; the database indexes them with the ``simple`` configuration. Queries go through the
same function, so both sides agree on what a token is.
"""

from __future__ import annotations

import re
import unicodedata

import rjieba

# Latin tokens keep the characters that make tech names distinct: c++, c#, node.js, .net
_LATIN = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SPLIT = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")
# Single CJK characters that carry no meaning for retrieval.
_CJK_STOP = frozenset("的了和与及或在是有等对为将把被从而也都就")
_EN_STOP = frozenset(
    "a an and are as at be by for from has have in is it of on or that the this to with we you our your will".split()
)


def tokenize(text: str | None) -> list[str]:
    """Lowercased tokens of ``text``: jieba words for Chinese runs, words for the rest."""
    if not text:
        return []
    text = unicodedata.normalize("NFKC", text).lower()
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

"""The keyword leg over the store's posting lists: the GIN statement's lookups and scores, in the client.

``keyword.keyword_sql`` finds each lookup's postings through a GIN index and then visits one
``job_terms`` row per posting to read its length and check the filters; at 100k postings those
visits were most of a hybrid query's time. Here the same lookups (``keyword._Branch``: a tsquery
per concept and column) are evaluated on the lexemes' posting lists
(``jobpipe.store.term_lists``): sorted job ids, with the description's length or the title
position carried in each record. ``&`` intersects, ``|`` unites, a title phrase (``<->``, ``<N>``)
matches where the positions follow each other. Scores are the statement's: BM25's length
normalization times the description lookups' IDF sum, plus the title lookups' sum.

Filters beyond "open" (the lists hold open postings only): an equality condition (a city, a job
type, a skill, stated fully remote) is a list of its own (``FilterSQL.list_keys``), intersected
with each lookup before its cap, as the statement ANDs a selective filter into its index scans;
what remains (a salary, a date, an unknown city) is checked on ``job_terms`` rows of the
best-scored postings, by primary key, in growing batches until enough pass (~1-3 µs a posting,
where reading a filter's postings first cost 25-47 ms at 100k, a sequential scan where no index
serves the filter). ``list_candidates`` returns None whenever the lists cannot
answer exactly as the statement would (not built yet, changes not merged yet, closed postings
asked for, an operator the lists cannot evaluate): the caller then runs the statement.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import psycopg

from jobpipe.search.filters import FilterSQL
from jobpipe.store.term_lists import TermLists, read_term_lists

#: Postings checked against a filter in the first batch, in multiples of the rows asked for
#: (divided by the filter's estimated share of postings); each further batch doubles.
_FIRST_BATCH = 1.5

_EMPTY = np.empty(0, dtype=np.int64)
_POS_BITS = 16   # title positions are below 2^14 (tsvector's limit): (job id << 16) | position


class Branch(Protocol):
    column: str      # search_tsv | title_tsv
    query: str       # tsquery text
    weight: float


class Unsupported(Exception):
    """A tsquery the lists cannot evaluate exactly (negation, prefixes, weights, AND inside a phrase)."""


# --- tsquery text -> tree -------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:'((?:[^'\\]|''|\\.)*)'(:[*A-Da-d]+)?|(<->|<\d+>|[&|!()]))")

Node = tuple[Any, ...]   # ("lex", text) | ("and"|"or", a, b) | ("phrase", a, b, distance)


def parse_tsquery(text: str) -> Node:
    """PostgreSQL's tsquery text output -> tree, with its precedence: ! > <-> > & > |."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise Unsupported(f"unreadable tsquery at {pos}: {text!r}")
        if m.group(3) is not None:
            tokens.append(("op", m.group(3)))
        else:
            if m.group(2):
                raise Unsupported("prefix or weight in tsquery")
            tokens.append(("lex", m.group(1).replace("''", "'").replace("\\\\", "\\")))
        pos = m.end()
    at = 0

    def peek() -> tuple[str, str] | None:
        return tokens[at] if at < len(tokens) else None

    def take() -> tuple[str, str]:
        nonlocal at
        if at >= len(tokens):
            raise Unsupported(f"truncated tsquery: {text!r}")
        at += 1
        return tokens[at - 1]

    def or_expr() -> Node:
        node = and_expr()
        while peek() == ("op", "|"):
            take()
            node = ("or", node, and_expr())
        return node

    def and_expr() -> Node:
        node = phrase_expr()
        while peek() == ("op", "&"):
            take()
            node = ("and", node, phrase_expr())
        return node

    def phrase_expr() -> Node:
        node = unary()
        while (tok := peek()) is not None and tok[0] == "op" and tok[1].startswith("<"):
            take()
            distance = 1 if tok[1] == "<->" else int(tok[1][1:-1])
            node = ("phrase", node, unary(), distance)
        return node

    def unary() -> Node:
        kind, value = take()
        if kind == "lex":
            return ("lex", value)
        if value == "(":
            node = or_expr()
            if take() != ("op", ")"):
                raise Unsupported(f"unbalanced tsquery: {text!r}")
            return node
        raise Unsupported(f"operator {value!r} in tsquery")

    tree = or_expr()
    if at != len(tokens):
        raise Unsupported(f"trailing tokens in tsquery: {text!r}")
    return tree


def _lexemes(node: Node, out: set[str]) -> set[str]:
    if node[0] == "lex":
        out.add(node[1])
    else:
        for child in node[1:3]:
            _lexemes(child, out)
    return out


_parsed: dict[str, Node | None] = {}
_parsed_lock = threading.Lock()
_PARSED_MAX = 20_000


def _tree(text: str) -> Node | None:
    """The parsed tsquery, cached (a query's lookups repeat across queries); None if unsupported."""
    with _parsed_lock:
        if text in _parsed:
            return _parsed[text]
    try:
        tree: Node | None = parse_tsquery(text)
    except Unsupported:
        tree = None
    with _parsed_lock:
        if len(_parsed) >= _PARSED_MAX:
            _parsed.clear()
        _parsed[text] = tree
    return tree


# --- evaluation -----------------------------------------------------------------------------

class _Lists:
    """Native arrays of the fetched lists, converted once per query and lexeme."""

    def __init__(self, fetched: TermLists):
        self._fetched = fetched
        self._body: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._keys: dict[str, np.ndarray] = {}
        self._title_docs: dict[str, np.ndarray] = {}

    def body(self, lexeme: str) -> tuple[np.ndarray, np.ndarray]:
        """(job ids, lengths) of a description lexeme."""
        got = self._body.get(lexeme)
        if got is None:
            records = self._fetched.body.get(lexeme)
            got = ((records["id"].astype(np.int64), records["len"].astype(np.int64)) if records is not None
                   else (_EMPTY, _EMPTY))
            self._body[lexeme] = got
        return got

    def title_keys(self, lexeme: str) -> np.ndarray:
        """(job id << 16) | position of every occurrence of a title lexeme, sorted."""
        got = self._keys.get(lexeme)
        if got is None:
            records = self._fetched.title.get(lexeme)
            got = ((records["id"].astype(np.int64) << _POS_BITS) | records["pos"].astype(np.int64)
                   if records is not None else _EMPTY)
            self._keys[lexeme] = got
        return got

    def title_docs(self, lexeme: str) -> np.ndarray:
        got = self._title_docs.get(lexeme)
        if got is None:
            got = _distinct(self.title_keys(lexeme) >> _POS_BITS)
            self._title_docs[lexeme] = got
        return got


# Set operations on sorted arrays of distinct ids (numpy's own sort or hash every input again).

def _distinct(ordered: np.ndarray) -> np.ndarray:
    """A sorted array without its repeats."""
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not len(a) or not len(b):
        return a if len(a) else b
    both = np.concatenate((a, b))
    both.sort(kind="stable")   # two sorted runs: timsort merges them in one pass
    return _distinct(both)


def _intersection(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) > len(b):
        a, b = b, a
    if not len(a):
        return a
    at = np.searchsorted(b, a)
    at[at == len(b)] = 0
    return a[b[at] == a]


def _docs(node: Node, lists: _Lists, title: bool) -> np.ndarray:
    """Sorted job ids matching ``node``."""
    kind = node[0]
    if kind == "lex":
        return lists.title_docs(node[1]) if title else lists.body(node[1])[0]
    if kind == "or":
        return _union(_docs(node[1], lists, title), _docs(node[2], lists, title))
    if kind == "and":
        return _intersection(_docs(node[1], lists, title), _docs(node[2], lists, title))
    if not title:
        raise Unsupported("phrase on description terms (stored without positions)")
    return _distinct(_phrase_keys(node, lists) >> _POS_BITS)


def _phrase_keys(node: Node, lists: _Lists) -> np.ndarray:
    """Positions where ``node`` matches, as keys; a phrase ends where its right side matches."""
    kind = node[0]
    if kind == "lex":
        return lists.title_keys(node[1])
    if kind == "or":
        return _union(_phrase_keys(node[1], lists), _phrase_keys(node[2], lists))
    if kind == "phrase":
        left = _phrase_keys(node[1], lists) + int(node[3])
        return _intersection(left, _phrase_keys(node[2], lists))
    raise Unsupported("AND inside a phrase")


# --- the leg --------------------------------------------------------------------------------

@dataclass(frozen=True)
class ListHit:
    job_id: int
    score: float


def list_candidates(
    conn: psycopg.Connection, branches: Sequence[Branch], fsql: FilterSQL, limit: int, *,
    avgdl: float, k1: float, b: float, branch_cap: int, filter_rows: int | None = None,
    total_rows: float | None = None,
) -> list[ListHit] | None:
    """The best ``limit`` postings by the statement's score, or None when the lists cannot answer."""
    if fsql.include_closed or not branches:
        return None
    trees = [_tree(branch.query) for branch in branches]
    if any(tree is None for tree in trees):
        return None
    body_lexemes: set[str] = set()
    title_lexemes: set[str] = set()
    for branch, tree in zip(branches, trees):
        assert tree is not None
        _lexemes(tree, title_lexemes if branch.column == "title_tsv" else body_lexemes)
    fetched = read_term_lists(conn, sorted(body_lexemes), sorted(title_lexemes), [k for k, _ in fsql.list_keys])
    if fetched is None:
        return None
    lists = _Lists(fetched)
    # The filter's equality conditions, answered by their own lists (as the statement ANDs a
    # selective filter into its index lookups, before each lookup's cap); a list too long to
    # read (a broad value at 1M postings: job_type=intern, 330,000 ids) is checked on rows.
    allowed = None
    unread: list[str] = []
    for key, clause in fsql.list_keys:
        ids = fetched.filters.get(key)
        if ids is None:
            unread.append(clause)
            continue
        allowed = ids if allowed is None else _intersection(allowed, ids)
    ids_parts, len_parts, body_w, title_w = [], [], [], []
    try:
        for branch, tree in zip(branches, trees):
            assert tree is not None
            title = branch.column == "title_tsv"
            ids = _docs(tree, lists, title)
            if allowed is not None:
                ids = _intersection(ids, allowed)
            ids = ids[:branch_cap]
            ids_parts.append(ids)
            len_parts.append(np.zeros(len(ids), dtype=np.int64) if title else _lengths(ids, tree, lists))
            weights = np.full(len(ids), float(branch.weight))
            zeros = np.zeros(len(ids))
            body_w.append(zeros if title else weights)
            title_w.append(weights if title else zeros)
    except Unsupported:
        return None
    if not ids_parts or not sum(len(p) for p in ids_parts):
        return []
    all_ids = np.concatenate(ids_parts)
    postings, inverse = np.unique(all_ids, return_inverse=True)
    body_sum = np.bincount(inverse, np.concatenate(body_w), len(postings))
    title_sum = np.bincount(inverse, np.concatenate(title_w), len(postings))
    lengths = np.zeros(len(postings))
    all_lengths = np.concatenate(len_parts)
    from_body = all_lengths > 0
    lengths[inverse[from_body]] = all_lengths[from_body]   # a posting's length is the same in every list
    norm = (k1 + 1.0) / (1.0 + k1 * (1.0 - b + b * lengths / avgdl))
    score = norm * body_sum + title_sum
    # The statement's order: score rounded to 1e-9 (sums in another order still tie), then job id.
    order = np.lexsort((postings, -np.round(score * 1e9)))
    residual = fsql.where if fsql.residual is None else fsql.residual
    if unread:
        residual = " AND ".join(dict.fromkeys([*unread, *([] if residual == "TRUE" else [residual])]))
    if not fsql.selective or residual == "TRUE":
        top = order[:limit]
        return [ListHit(int(postings[i]), float(score[i])) for i in top]
    # The rest of the filter (a salary, a date, ...) on the rows of the best-scored postings;
    # of those the key lists let through, about filter_rows / len(allowed) pass it.
    base = float(len(allowed)) if allowed is not None else total_rows
    share = (filter_rows / base) if filter_rows and base else 0.5
    return _checked(conn, residual, fsql.params, postings, score, order, limit, share)


def _lengths(ids: np.ndarray, tree: Node, lists: _Lists) -> np.ndarray:
    """Each matched posting's length, read from the lists of the lookup's lexemes."""
    out = np.zeros(len(ids), dtype=np.int64)
    missing = np.ones(len(ids), dtype=bool)
    for lexeme in sorted(_lexemes(tree, set())):
        if not missing.any():
            break
        listed, lengths = lists.body(lexeme)
        if not len(listed):
            continue
        at = np.minimum(np.searchsorted(listed, ids), len(listed) - 1)
        found = missing & (listed[at] == ids)
        out[found] = lengths[at[found]]
        missing &= ~found
    return out


#: The rest of a filter, on candidates' rows. A date or salary condition reads only columns the
#: primary key carries (sql/0036): an index-only scan, no visit to the ~2 kB row.
CHECK_SQL = "SELECT j.job_id FROM job_terms j WHERE j.job_id = ANY(%(list_ids)s) AND {where}"


def _checked(conn: psycopg.Connection, where: str, params: dict[str, Any], postings: np.ndarray,
             score: np.ndarray, order: np.ndarray, limit: int, share: float) -> list[ListHit]:
    """The best-scored postings whose rows pass ``where``, checked in growing batches."""
    batch = int(max(limit, _FIRST_BATCH * limit / max(min(share, 1.0), 0.01)))
    passed: list[int] = []
    start = 0
    while start < len(order) and len(passed) < limit:
        part = order[start:start + batch]
        ids = postings[part]
        ok = {r[0] for r in conn.execute(CHECK_SQL.format(where=where), params | {"list_ids": ids.tolist()})}
        passed.extend(int(i) for i in part if int(postings[i]) in ok)
        start += batch
        batch *= 2
    return [ListHit(int(postings[i]), float(score[i])) for i in passed[:limit]]

"""Our labelled search queries (bench/labels/search_queries.jsonl) stay well-formed and honest.

Structure is checked without ../shared; with it, every id must exist and no query may copy a
long run of its target's text (the queries are our own paraphrases).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from jobpipe.search.types import SearchFilters
from jobpipe_tests.conftest import shared_data_path

QUERIES = Path(__file__).resolve().parents[2] / "bench" / "labels" / "search_queries.jsonl"
FILTER_TYPES = {"city", "job_type", "remote", "salary", "posted_within"}


@pytest.fixture(scope="module")
def queries() -> list[dict]:
    return [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_set_covers_what_issue_15_asks(queries):
    assert len({q["qid"] for q in queries}) == len(queries)
    kinds = Counter((q["kind"], q["lang"]) for q in queries)
    assert kinds[("known_item", "cross")] >= 100
    cross = [q for q in queries if q["kind"] == "known_item" and q["lang"] == "cross"]
    zh_queries = sum(bool(re.search(r"[\u4e00-\u9fff]", q["query"])) for q in cross)
    assert zh_queries >= 40 and len(cross) - zh_queries >= 40          # both directions
    types = Counter(q.get("filter_type") for q in queries if q["kind"] == "filtered")
    assert set(types) == FILTER_TYPES and min(types.values()) >= 4


def test_every_query_is_scorable(queries):
    for q in queries:
        assert q["relevant"] and len(set(q["relevant"])) == len(q["relevant"]), q["qid"]
        assert q["kind"] in ("known_item", "filtered") and q["lang"] in ("zh", "en", "cross")
        filters = dict(q["filters"])
        as_of = filters.pop("as_of", None)
        assert (as_of is not None) == ("posted_within_days" in filters), q["qid"]
        SearchFilters.parse(filters)   # the bench passes them to search as they are
        assert len(q["note"]) < 300


def test_ids_exist_and_queries_are_paraphrases(queries):
    path = shared_data_path("eval", "postings.jsonl")
    postings = {}
    for line in path.read_text(encoding="utf-8").split("\n"):   # descriptions hold U+2028
        if line.strip():
            row = json.loads(line)
            postings[row["id"]] = row
    for q in queries:
        missing = [i for i in q["relevant"] if i not in postings]
        assert not missing, (q["qid"], missing)
        if q["kind"] != "known_item":
            continue
        target = postings[q["relevant"][0]]
        # A job title is how people ask for a job; anything longer copied from the text is not.
        description = re.sub(r"\s+", " ", target["description"] or "").lower().replace((target["title"] or "").lower(), " ")
        text = q["query"].lower()
        runs = [text[i:i + 40] for i in range(0, max(1, len(text) - 40), 10)]
        assert not any(len(r) == 40 and r in description for r in runs), q["qid"]

"""Dedupe precision on the eval corpus: do the postings the dedupe key merges belong together?

    python bench/bench_dedupe_precision.py [--unjudged]

The eval postings (../shared/data/eval/postings.jsonl, read as a file source the way
bench/accuracy_corpus.py does) are normalized and grouped by ``jobpipe.store.dedupe_key``, and by
the key as it was before (company + title + first city) for comparison. Every pair of postings
that share a key is a merged pair. A pair whose descriptions are equal after normalization (same
company, title, places and text) is a copy; every other pair was read and judged by a person
(bench/labels/dedupe_pairs.jsonl: ids, same or not, a one-line reason). Precision counts copies
and pairs judged the same job against every merged pair (a pair nobody judged counts as wrong;
``--unjudged`` lists them). Recall: of the pairs known to be one job (copies and pairs judged the
same under either key, plus the duplicates the dev queries list as one known item), how many the
key groups.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import accuracy_corpus as corpus  # noqa: E402

from jobpipe.models import NormalizedPosting  # noqa: E402
from jobpipe.normalize import normalize_posting  # noqa: E402
from jobpipe.store.dedupe import _normalize_city, dedupe_key, normalize_company, normalize_text  # noqa: E402

LABELS = Path(__file__).resolve().parent / "labels" / "dedupe_pairs.jsonl"
QUERIES = corpus.DATA / "eval" / "dev_queries.jsonl"
FETCHED = datetime(2026, 12, 1, tzinfo=timezone.utc)
EVAL_ORIGINS = ("rebase", "bili", "zhilian", "google", "gd")


def previous_key(posting: NormalizedPosting) -> str:
    """The key before it told openings apart: company (else a hash of the description) + title +
    first city."""
    company = normalize_company(posting.company)
    if not company:
        body = normalize_text(posting.description_text)
        company = "~" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:12] if body else ""
    city = _normalize_city(posting.cities[0]) if posting.cities else ""
    return f"{company}|{normalize_text(posting.title)}|{city}"


def merged_pairs(postings: dict[str, NormalizedPosting], key) -> set[tuple[str, str]]:
    groups: dict[str, list[str]] = defaultdict(list)
    for pid, posting in postings.items():
        groups[key(posting)].append(pid)
    return {tuple(sorted(p)) for ids in groups.values() if len(ids) > 1 for p in itertools.combinations(ids, 2)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--unjudged", action="store_true", help="list merged pairs nobody has judged")
    args = parser.parse_args()
    if not corpus.available():
        print(f"skipped: needs {corpus.DATA} (../shared/data is absent in this checkout)")
        return 0
    postings = {pid: normalize_posting(p.fields, source=p.origin, external_id=pid, fetched_at=FETCHED)
                for pid, p in corpus.all_postings().items() if p.origin in EVAL_ORIGINS}
    bodies = {pid: normalize_text(p.description_text) for pid, p in postings.items()}
    judged = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            lab = json.loads(line)
            judged[tuple(sorted((lab["a"], lab["b"])))] = bool(lab["same"])
    known_same = {p for p, same in judged.items() if same}
    for line in QUERIES.read_text(encoding="utf-8").splitlines() if QUERIES.exists() else []:
        q = json.loads(line)
        if q.get("kind") == "known_item" and len(q["relevant"]) > 1:
            known_same.update(tuple(sorted(p)) for p in itertools.combinations(q["relevant"], 2))
    results = {}
    for name, key in (("before (company|title|first city)", previous_key), ("now (dedupe_key)", dedupe_key)):
        pairs = merged_pairs(postings, key)
        copies = {p for p in pairs if bodies[p[0]] and bodies[p[0]] == bodies[p[1]]}
        same = {p for p in pairs - copies if judged.get(p) is True}
        different = {p for p in pairs - copies if judged.get(p) is False}
        unjudged = pairs - copies - same - different
        results[name] = (pairs, copies, same, different, unjudged)
        known_same |= copies
    print(f"dedupe on {len(postings)} eval postings ({', '.join(EVAL_ORIGINS)})\n")
    print(f"{'key':<36}{'pairs merged':>13}{'copies':>8}{'judged same':>12}{'different':>10}{'unjudged':>9}"
          f"{'precision':>10}{'recall':>8}")
    for name, (pairs, copies, same, different, unjudged) in results.items():
        precision = (len(copies) + len(same)) / len(pairs) if pairs else 1.0
        recall = len(pairs & known_same) / len(known_same) if known_same else 0.0
        print(f"{name:<36}{len(pairs):>13}{len(copies):>8}{len(same):>12}{len(different):>10}{len(unjudged):>9}"
              f"{precision:>10.3f}{recall:>8.3f}")
    print(f"\nrecall is over {len(known_same)} pairs known to be one job (copies, pairs judged the same, "
          f"dev-query duplicates)")
    now = results["now (dedupe_key)"]
    missed = sorted(known_same - now[0])
    if missed:
        print(f"{len(missed)} pairs of one job the key no longer groups (edited reposts whose text signature differs):")
        for a, b in missed:
            print(f"  {a}  {b}  {postings[a].title[:60]}")
    if args.unjudged:
        for name, (*_, unjudged) in results.items():
            for a, b in sorted(unjudged):
                print(f"unjudged [{name}]: {a}  {b}  {postings[a].title[:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

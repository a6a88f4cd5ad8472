"""Draw the postings of the normalization accuracy set (prints one id per line, with its stratum).

    python bench/labels/draw_accuracy_sample.py > /tmp/sample.tsv

How the set is drawn (re-running this prints the same ids):

1. A seeded random sample per origin (``random.Random(f"{SEED}:{origin}")`` over the sorted ids,
   first ``n``): the eval corpus' five origins, the raw corpora that are not part of it (51job,
   拉勾 as stored with its mojibake, the uncleaned Glassdoor file), the Tencent and 拉勾 mobile API
   items, and every posting of the English API samples and JSON-LD pages (there are few).
2. A deliberate extra sample of statements made only in the description: eval and raw postings whose
   structured field is empty while the description talks about pay, the work arrangement or the
   employment type (plain keyword tests written here, not jobpipe's parsers), ``EXTRA`` of each
   kind, drawn with the same seeded shuffle from what step 1 did not take.

A posting is in the hold-out part when ``sha1(id)`` mod 10 < 3: labelled with the rest before any
fix, and measured only at the end (``bench_normalize_accuracy.py --holdout``).
"""

from __future__ import annotations

import hashlib
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import accuracy_corpus as corpus  # noqa: E402

SEED = "jobpipe-accuracy-1"
PER_ORIGIN = {"rebase": 60, "bili": 40, "zhilian": 30, "google": 45, "gd": 45,
              "51job": 20, "lagou": 20, "glassdoor": 15, "tencent": 8, "lagou_api": 8, "api": 1000}
EXTRA = 15

_PAY = re.compile(r"薪|工资|待遇|salary|compensation|pay range|base pay|hourly rate|\$\s?\d|[¥￥€£]\s?\d|\d\s?[kK万]\s?[/-]", re.I)
_MODE = re.compile(r"远程|遠程|居家|在家办公|混合办公|坐班|remote|hybrid|on-?site|in[- ]office|work from home|wfh|telecommut", re.I)
_TYPE = re.compile(r"全职|兼职|实习|校招|应届|full[- ]time|part[- ]time|contract|intern|temporary|fixed[- ]term|"
                   r"permanent|graduate", re.I)


def holdout(ident: str) -> bool:
    return int(hashlib.sha1(ident.encode("utf-8")).hexdigest(), 16) % 10 < 3


def _shuffled(ids: list[str], stratum: str) -> list[str]:
    ids = sorted(ids)
    random.Random(f"{SEED}:{stratum}").shuffle(ids)
    return ids


def draw() -> list[tuple[str, str]]:
    postings = corpus.all_postings()
    by_origin: dict[str, list[str]] = {}
    for p in postings.values():
        by_origin.setdefault(p.origin, []).append(p.id)
    chosen: list[tuple[str, str]] = []
    taken: set[str] = set()
    for origin, n in PER_ORIGIN.items():
        for ident in _shuffled(by_origin.get(origin, []), origin)[:n]:
            chosen.append((ident, f"random:{origin}"))
            taken.add(ident)
    pools: dict[str, list[str]] = {"pay": [], "mode": [], "type": []}
    for p in postings.values():
        if p.id in taken or p.origin == "api":
            continue
        f = p.fields
        text = f.description or ""
        if not (f.salary_text or f.salary) and _PAY.search(text) and re.search(r"\d", text):
            pools["pay"].append(p.id)
        if not (_MODE.search(f.location or "") or _MODE.search(f.title or "") or f.remote_hint) and _MODE.search(text):
            pools["mode"].append(p.id)
        if not f.employment_type and _TYPE.search(text):
            pools["type"].append(p.id)
    for kind, ids in pools.items():
        picked = [i for i in _shuffled(ids, f"extra:{kind}") if i not in taken][:EXTRA]
        for ident in picked:
            chosen.append((ident, f"extra:{kind}"))
            taken.add(ident)
    return chosen


if __name__ == "__main__":
    if not corpus.available():
        print("needs ../shared/data (absent): nothing to draw", file=sys.stderr)
        sys.exit(1)
    for ident, stratum in draw():
        print(f"{ident}\t{stratum}\t{'holdout' if holdout(ident) else 'dev'}")

"""Normalization accuracy against hand labels (bench/labels/normalize_accuracy.jsonl).

    python bench/bench_normalize_accuracy.py [--split dev|holdout|all] [--misses] [--unjudged]

Each labelled posting is read from ../shared/data the way jobpipe reads it (bench/accuracy_corpus.py),
normalized, and compared field by field with what a careful reader decided (the labels were written
from the postings' text, never from jobpipe's output: docs/normalization.md says how they were drawn
and how to extend them). Prints accuracy per field and per origin, overall, skill precision, and with
``--misses`` every miss (id, field, expected, got).

Fields: ``salary`` (min, max, currency, period and months together; amounts within 1%), ``cities``
(as a set), ``country``, ``remote`` (remote | hybrid | onsite | unstated), ``job_type``, ``seniority``,
``experience`` ([min, max] years required; ``*`` where a multi-role posting or alternatives by degree
state several) and ``degree`` (the lowest degree required).
A label ``*`` means the posting has no single right value for that field (several roles with
different levels, a broken source value): it is not scored. Skill precision counts the predicted
skills the reader accepted (``skills_yes``) against those rejected (``skills_no``); a predicted
skill the reader has not judged yet counts as wrong and is listed with ``--unjudged``.

The ``holdout`` part (about a third of the set, chosen by a hash of the id) was labelled with the
rest before any fix and is measured only at the end; ``dev`` is what fixes were checked against.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import accuracy_corpus as corpus  # noqa: E402

from jobpipe.models import NormalizedPosting  # noqa: E402
from jobpipe.normalize import normalize_posting  # noqa: E402

LABELS = Path(__file__).resolve().parent / "labels" / "normalize_accuracy.jsonl"
FETCHED = datetime(2026, 12, 1, tzinfo=timezone.utc)
FIELDS = ("salary", "cities", "country", "remote", "job_type", "seniority", "experience", "degree")
TARGET_OVERALL, TARGET_FIELD, TARGET_SKILLS = 0.97, 0.95, 0.95


def load_labels(split: str) -> list[dict[str, Any]]:
    labels = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return labels if split == "all" else [lab for lab in labels if lab["split"] == split]


def got_value(posting: NormalizedPosting, field: str) -> Any:
    if field == "salary":
        s = posting.salary
        if s.min is None and s.max is None:
            return None
        return {"min": s.min, "max": s.max, "currency": s.currency, "period": s.period, "months": s.months_per_year}
    if field == "cities":
        return sorted(posting.cities)
    if field == "remote":
        return posting.remote or "unstated"
    if field == "experience":
        if posting.experience_min is None and posting.experience_max is None:
            return None
        return [posting.experience_min, posting.experience_max]
    return getattr(posting, field)


def _amount_equal(expected: float | None, got: float | None) -> bool:
    if expected is None or got is None:
        return expected is None and got is None
    return abs(expected - got) <= max(1.0, 0.01 * abs(expected))


def matches(field: str, expected: Any, got: Any) -> bool:
    if field == "salary":
        if expected is None or got is None:
            return expected is None and got is None
        return (_amount_equal(expected["min"], got["min"]) and _amount_equal(expected["max"], got["max"])
                and expected["currency"] == got["currency"] and expected["period"] == got["period"]
                and expected["months"] == got["months"])
    if field == "cities":
        return sorted(expected) == got
    if field == "experience":
        if expected is None or got is None:
            return expected is None and got is None
        return _amount_equal(expected[0], got[0]) and _amount_equal(expected[1], got[1])
    return expected == got


def _pct(hit: int, n: int) -> str:
    return f"{hit / n:6.1%}" if n else "     -"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="dev")
    parser.add_argument("--misses", action="store_true", help="list every miss")
    parser.add_argument("--unjudged", action="store_true", help="list predicted skills no label judges")
    args = parser.parse_args()
    if not corpus.available():
        print(f"skipped: needs {corpus.DATA} (../shared/data is absent in this checkout)")
        return 0
    labels = load_labels(args.split)
    postings = corpus.all_postings()
    per_field: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_origin: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    per_provenance: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    misses: list[tuple[str, str, Any, Any]] = []
    skills = Counter()
    unjudged: list[tuple[str, str]] = []
    for lab in labels:
        p = postings.get(lab["id"])
        if p is None:
            misses.append((lab["id"], "posting", "present in ../shared", "absent"))
            continue
        got = normalize_posting(p.fields, source=p.origin, external_id=p.id, fetched_at=FETCHED)
        for field in FIELDS:
            expected = lab[field]
            if expected == "*":
                continue
            value = got_value(got, field)
            ok = matches(field, expected, value)
            provenance = got.field_origins.get("salary" if field == "salary" else "cities" if field == "country" else field,
                                               "none") if field != "country" or got.country else "none"
            for tally in (per_field[field], per_origin[lab["origin"]][field], per_provenance[field][provenance]):
                tally[0] += ok
                tally[1] += 1
            if not ok:
                misses.append((lab["id"], field, expected, value))
        yes, no = set(lab["skills_yes"]), set(lab["skills_no"])
        for skill in got.skills:
            if skill in yes:
                skills["right"] += 1
            elif skill in no:
                skills["wrong"] += 1
            else:
                skills["unjudged"] += 1
                unjudged.append((lab["id"], skill))
        skills["labelled_yes"] += len(yes)
        skills["found_yes"] += len(yes & set(got.skills))

    total_hit = sum(h for h, _ in per_field.values())
    total_n = sum(n for _, n in per_field.values())
    print(f"normalization accuracy on {len(labels)} labelled postings (split: {args.split})\n")
    origins = sorted(per_origin, key=lambda o: (-sum(n for _, n in per_origin[o].values()), o))
    print(f"{'origin':<11}{'n':>5}" + "".join(f"{f:>11}" for f in FIELDS) + f"{'all':>9}")
    for origin in origins:
        row = per_origin[origin]
        n_post = sum(1 for lab in labels if lab["origin"] == origin)
        hit = sum(h for h, _ in row.values())
        n = sum(c for _, c in row.values())
        print(f"{origin:<11}{n_post:>5}" + "".join(f"{_pct(*row[f]):>11}" for f in FIELDS) + f"{_pct(hit, n):>9}")
    print(f"{'all':<11}{len(labels):>5}" + "".join(f"{_pct(*per_field[f]):>11}" for f in FIELDS)
          + f"{_pct(total_hit, total_n):>9}")
    print("\nby where the value came from (field_origins; 'none': no value, right when the label has none too):")
    kinds = ("source_field", "title", "description", "inferred", "none")
    print(f"{'field':<11}" + "".join(f"{k:>17}" for k in kinds))
    for field in FIELDS:
        row = per_provenance[field]
        print(f"{field:<11}" + "".join(f"{_pct(*row[k]) + f' ({row[k][1]})' if row[k][1] else '-':>17}" for k in kinds))
    print("\nper field (right/scored): " + ", ".join(f"{f} {per_field[f][0]}/{per_field[f][1]}" for f in FIELDS))
    judged = skills["right"] + skills["wrong"]
    strict = skills["right"] / (judged + skills["unjudged"]) if judged + skills["unjudged"] else 0.0
    print(f"overall: {_pct(total_hit, total_n).strip()} ({total_hit}/{total_n} field values)")
    print(f"skill precision: {strict:.3f} ({skills['right']} right, {skills['wrong']} wrong, "
          f"{skills['unjudged']} not yet judged and counted wrong); "
          f"judged only {skills['right'] / judged if judged else 0:.3f}; "
          f"recall of accepted skills {skills['found_yes'] / skills['labelled_yes'] if skills['labelled_yes'] else 0:.3f}")
    worst = min(per_field[f][0] / per_field[f][1] for f in FIELDS if per_field[f][1])
    ok = total_hit / total_n >= TARGET_OVERALL and worst >= TARGET_FIELD and strict >= TARGET_SKILLS
    print(f"targets (overall >= {TARGET_OVERALL:.0%}, every field >= {TARGET_FIELD:.0%}, skill precision >= "
          f"{TARGET_SKILLS}): {'met' if ok else 'NOT met'}")
    if args.misses:
        print(f"\n{len(misses)} misses (id, field, expected, got):")
        for ident, field, expected, value in sorted(misses, key=lambda m: (m[1], m[0])):
            print(f"  {ident}  {field}: expected {json.dumps(expected, ensure_ascii=False)}  got "
                  f"{json.dumps(value, ensure_ascii=False)}")
    if args.unjudged and unjudged:
        print(f"\n{len(unjudged)} predicted skills no label judges (id, skill):")
        for ident, skill in unjudged:
            print(f"  {ident}  {skill}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

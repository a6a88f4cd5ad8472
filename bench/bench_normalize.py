"""Normalization coverage and throughput on the shared evaluation corpus and the raw corpora.

Prints, per origin: how many postings got a parsed salary (amounts or "negotiable", where salary
text exists), a resolved location (a city, a country or a remote mode, where a location exists),
a city, a job type, and at least 3 skills; then single-core throughput.

    python bench/bench_normalize.py [--limit N] [--show-failures K] [--skip-raw] [--rounds R]

Throughput is measured as CPU time of this process (``time.process_time``) on one core, so other
work on a shared machine slows it less than wall time; the median of several rounds is printed
(with best and worst, and wall time), with a calibration loop to compare machines. Compare code
versions by their ratio within one run, not by absolute figures from different runs.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jobpipe.models import PostingFields  # noqa: E402
from jobpipe.normalize import normalize_posting, validate_postings  # noqa: E402
from jobpipe.normalize.text import repair_mojibake  # noqa: E402

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FETCHED = datetime(2026, 11, 29, tzinfo=timezone.utc)
csv.field_size_limit(10**8)


def eval_rows(limit: int | None) -> Iterator[tuple[str, str, PostingFields]]:
    with open(DATA / "eval" / "postings.jsonl", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit and i >= limit:
                break
            r = json.loads(line)
            yield r["origin"], r["id"], PostingFields(
                title=r["title"], company=r["company"], location=r["location"], salary_text=r["salary_text"],
                employment_type=r["employment_type_text"], description=r["description"], url=r["url"],
                posted_at=r["posted_at"], extra={"origin": r["origin"]},
            )


def _cell(value: str) -> str | None:
    """51job cells are stringified Python lists: "['1-1.5万/月']"."""
    value = (value or "").strip()
    if value.startswith("["):
        try:
            items = ast.literal_eval(value)
            return " ".join(str(x) for x in items) or None
        except (ValueError, SyntaxError):
            return value.strip("[]'") or None
    return value or None


def raw_rows(limit: int | None) -> Iterator[tuple[str, str, PostingFields]]:
    zh, en = DATA / "corpus_zh", DATA / "corpus_en"
    # 51job: GBK file, list cells, columns shift when a field is missing (学历 may land in 工作经验)
    with open(zh / "51job_bigdata_jobs_2019_GBK__SpiderOf51job.csv", encoding="gb18030", errors="replace", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if limit and i >= limit:
                break
            yield "raw:51job", str(i), PostingFields(
                title=_cell(row["职位"]), company=_cell(row["公司"]), salary_text=_cell(row["薪资"]), location=_cell(row["地区"]),
                experience_text=_cell(row["工作经验"]), degree_text=_cell(row["学历"]) or _cell(row["工作经验"]),
                description=_cell(row["岗位信息"]), posted_at=_cell(row["时间"]),
            )
    with open(zh / "zhilian_data_jobs_2019__JobSpider.csv", encoding="utf-8", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if limit and i >= limit:
                break
            yield "raw:zhilian", str(i), PostingFields(
                title=row["title"], company=row["company"], salary_text=row["salary"], location=row["address"],
                experience_text=row["work_experience"], degree_text=row["education"], description=row["requirements"], url=row["url"],
            )
    # 拉勾 as stored: UTF-8 of Latin-1 of GBK; every cell goes through the mojibake repair
    with open(zh / "lagou_DataAnalyst_2017__MOJIBAKE_utf8-of-latin1-of-gbk__jobAnalyst.csv", encoding="utf-8", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if limit and i >= limit:
                break
            fix = {k: repair_mojibake(v or "") for k, v in row.items()}
            yield "raw:lagou", str(i), PostingFields(
                title=fix["positionName"], company=fix["companyFullName"], salary_text=fix["salary"], location=fix["city"],
                experience_text=fix["workYear"], degree_text=fix["education"],
                description=fix["positionAdvantage"] + "\n" + fix["positionLables"],
            )
    with open(zh / "bilibili_jobs_2021__bilibilijob.jsonl", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit and i >= limit:
                break
            r = json.loads(line)
            yield "raw:bilibili", str(i), PostingFields(
                title=r["title"], company="bilibili", location=r["work_location"], employment_type=r["position_type"],
                description=r["description"], url=r["url"], posted_at=r["push_time"],
            )
    with open(zh / "rebase_who_is_hiring_issues.jsonl", encoding="utf-8") as f:
        for i, line in enumerate(f):
            if limit and i >= limit:
                break
            r = json.loads(line)
            n = r.get("normalized_by_repo") or {}
            yield "raw:rebase", str(r["issue_number"]), PostingFields(
                title=r["title"], company=n.get("company"), location=n.get("location"), salary_text=n.get("salary"),
                employment_type=n.get("employment_type"), remote_hint=n.get("work_mode"), description=r["body"],
                url=r["url"], posted_at=r["created_at"], extra={"repo_currency": n.get("salary_currency")},
            )
    for name, path in [("raw:glassdoor", en / "glassdoor_uncleaned_DS_jobs__GlassDoor_Data_Science_Job_Posting.csv"),
                       ("raw:glassdoor2020", en / "glassdoor_ds_jobs_2020__ds_salary_proj.csv")]:
        with open(path, encoding="utf-8", newline="") as f:
            for i, row in enumerate(csv.DictReader(f)):
                if limit and i >= limit:
                    break
                salary = row["Salary Estimate"] if row["Salary Estimate"] not in ("-1", "") else None
                yield name, str(i), PostingFields(
                    title=row["Job Title"], company=row["Company Name"], salary_text=salary, location=row["Location"],
                    description=row["Job Description"],
                )
    with open(en / "google_careers_job_skills_2018__data_analysis_google_project.csv", encoding="utf-8-sig", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            if limit and i >= limit:
                break
            desc = "\n\n".join(row[k] for k in ("Responsibilities", "Minimum Qualifications", "Preferred Qualifications") if row[k])
            yield "raw:google", str(i), PostingFields(title=row["Title"], company=row["Company"], location=row["Location"],
                                                      description=desc)


def coverage(rows: list[tuple[str, str, PostingFields]], show_failures: int) -> list:
    stats: dict[str, Counter] = defaultdict(Counter)
    failures: dict[str, dict[str, Counter]] = defaultdict(lambda: defaultdict(Counter))
    postings = []
    for origin, ext_id, fields in rows:
        p = normalize_posting(fields, source=origin, external_id=ext_id, fetched_at=FETCHED)
        postings.append(p)
        c = stats[origin]
        c["n"] += 1
        if fields.salary_text and fields.salary_text.strip():
            c["salary_text"] += 1
            ok = p.salary.min is not None or p.salary.max is not None or p.salary.negotiable
            c["salary_ok"] += ok
            c["salary_amounts"] += p.salary.min is not None or p.salary.max is not None
            if not ok:
                failures[origin]["salary"][fields.salary_text[:60]] += 1
            repo_cur = fields.extra.get("repo_currency")
            if repo_cur and p.salary.currency:
                c["currency_compared"] += 1
                c["currency_agrees"] += repo_cur == p.salary.currency
        if fields.location and fields.location.strip():
            c["location"] += 1
            resolved = bool(p.cities or p.country or p.remote)
            c["location_ok"] += resolved
            c["city"] += bool(p.cities)
            if not resolved:
                failures[origin]["location"][fields.location[:60]] += 1
        c["job_type"] += p.job_type is not None
        c["skills3"] += len(p.skills) >= 3
        c["remote"] += p.remote is not None
    print(f"{'origin':18s} {'n':>5s} {'salary parsed/neg':>20s} {'amounts':>8s} {'loc resolved':>16s} {'city':>7s} "
          f"{'job type':>9s} {'>=3 skills':>11s}")

    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:5.1f}% ({b})" if b else "    -"

    for origin in sorted(stats):
        c = stats[origin]
        print(f"{origin:18s} {c['n']:5d} {pct(c['salary_ok'], c['salary_text']):>20s} "
              f"{(100 * c['salary_amounts'] / c['salary_text'] if c['salary_text'] else 0):7.1f}% "
              f"{pct(c['location_ok'], c['location']):>16s} {(100 * c['city'] / c['location'] if c['location'] else 0):6.1f}% "
              f"{100 * c['job_type'] / c['n']:8.1f}% {100 * c['skills3'] / c['n']:10.1f}%")
        if c["currency_compared"]:
            print(f"{'':18s} currency agrees with the repo's own parse on {c['currency_agrees']}/{c['currency_compared']}")
    totals = Counter()
    for c in stats.values():
        totals.update(c)
    print(f"{'ALL':18s} {totals['n']:5d} {pct(totals['salary_ok'], totals['salary_text']):>20s} {'':8s} "
          f"{pct(totals['location_ok'], totals['location']):>16s}")
    noted = Counter(note.split(":")[0].split(" cut")[0] for p in postings for note in p.notes)
    print(f"{'':18s} with a note (cut or left out: normalize/caps.py, implausible salaries): "
          f"{sum(1 for p in postings if p.notes)} postings {dict(sorted(noted.items()))}")
    if show_failures:
        for origin, kinds in failures.items():
            for kind, counter in kinds.items():
                print(f"  unparsed {kind} in {origin}: {counter.most_common(show_failures)}")
    return postings


def calibration() -> float:
    t = time.process_time()
    sum(range(5_000_000))
    return time.process_time() - t


def _clear_value_caches() -> None:
    """Empty the per-value caches (salary, location, type and seniority strings), not the tables.

    Each round then costs what one pass over a fresh batch costs: values repeated inside the batch
    still hit, values seen in an earlier round do not.
    """
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("jobpipe.normalize"):
            continue
        for value in list(vars(module).values()):
            params = getattr(value, "cache_parameters", None)
            if params is not None and params().get("maxsize") != 1:
                value.cache_clear()


def throughput(rows: list[tuple[str, str, PostingFields]], rounds: int) -> None:
    normalize_posting(rows[0][2], source="warm", external_id="0", fetched_at=FETCHED)   # load tables once
    cals, cpus, walls = [], [], []
    for _ in range(rounds):
        _clear_value_caches()
        cals.append(calibration())
        wall, cpu = time.perf_counter(), time.process_time()
        postings = [normalize_posting(f, source=o, external_id=i, fetched_at=FETCHED) for o, i, f in rows]
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    vcpu = time.process_time()
    result = validate_postings(postings)
    vcpu = time.process_time() - vcpu
    rates = sorted(len(rows) / c for c in cpus)
    print(f"\nthroughput on {len(rows)} eval postings, one core, {rounds} rounds (per-value caches emptied before "
          f"each): median {statistics.median(rates):,.0f} postings/s CPU, best {rates[-1]:,.0f}/s, worst {rates[0]:,.0f}/s "
          f"(median wall {len(rows) / statistics.median(walls):,.0f}/s); pandera validation {len(rows) / vcpu:,.0f} "
          f"postings/s ({len(result.valid)} valid, {len(result.rejected)} rejected)")
    print(f"calibration: sum(range(5e6)) took {min(cals) * 1000:.0f}-{max(cals) * 1000:.0f} ms CPU in this run (compare "
          f"runs and machines by it: on a shared machine it varies 2x within minutes)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=None, help="rows per file (default: all)")
    parser.add_argument("--show-failures", type=int, default=8)
    parser.add_argument("--skip-raw", action="store_true")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes over the eval postings (median printed)")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"shared data not found at {DATA}")
    rows = list(eval_rows(args.limit))
    print(f"== eval/postings.jsonl ({len(rows)} postings)")
    coverage(rows, args.show_failures)
    if not args.skip_raw:
        raw = list(raw_rows(args.limit))
        print(f"\n== raw corpora ({len(raw)} postings)")
        coverage(raw, args.show_failures)
    throughput(rows, args.rounds)


if __name__ == "__main__":
    main()

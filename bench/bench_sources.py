"""Source layer figures: fetch + parse throughput, and what an unchanged re-run costs.

A local server serves 5,000 generated postings across 20 boards of several kinds
(Greenhouse, Lever paged by 100, Ashby, Recruitee, JSON-LD career sites with listing and
detail pages), every response with an ETag. Run 1 fetches everything; run 2 repeats it with
the pages remembered from run 1, as the nightly run does with ``http_cache``. Figures are
ratios within one run on this machine. With a database reachable (embedded or
JOBPIPE_DATABASE_URL) it also times ``record_fetch`` into a scratch database.

    python bench/bench_sources.py [--postings 5000] [--boards 20]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"

from jobpipe.sources import PoliteClient, extract, fetch_source, load_sources  # noqa: E402
from jobpipe.sources.config import parse_sources  # noqa: E402
from jobpipe_tests.sources.server import FixtureServer, Reply  # noqa: E402

KINDS = ["greenhouse", "lever", "ashby", "jsonld", "recruitee"]
WORDS = ("build scalable data pipelines with Python and PostgreSQL, own services end to end, mentor engineers, "
         "负责后端服务开发 熟悉 Go Kafka Kubernetes 分布式系统 ").split()


def description(i: int) -> str:
    words = [WORDS[(i * 7 + k) % len(WORDS)] for k in range(220)]
    return "<p>" + " ".join(words) + "</p>"


def job(kind: str, board: int, i: int) -> dict:
    n = board * 100000 + i
    title = f"Engineer {n}"
    if kind == "greenhouse":
        return {"id": n, "title": title, "absolute_url": f"https://example.test/{n}", "location": {"name": "Berlin"},
                "updated_at": "2026-10-01T00:00:00Z", "first_published": "2026-09-01T00:00:00Z", "company_name": f"Co {board}",
                "content": description(n).replace("<", "&lt;").replace(">", "&gt;"), "departments": [{"id": 1, "name": "Eng"}],
                "offices": [{"id": 1, "name": "Berlin"}], "metadata": []}
    if kind == "lever":
        return {"id": f"lv-{n}", "text": title, "categories": {"commitment": "Full-time", "location": "NYC", "team": "Eng",
                "allLocations": ["NYC"]}, "createdAt": 1790000000000 + n, "description": description(n), "lists": [],
                "additional": "", "hostedUrl": f"https://jobs.lever.co/co{board}/lv-{n}", "workplaceType": "hybrid"}
    if kind == "ashby":
        return {"id": f"ab-{n}", "title": title, "department": "Eng", "employmentType": "FullTime", "location": "Remote",
                "secondaryLocations": [], "publishedAt": "2026-09-01T00:00:00Z", "isListed": True, "isRemote": True,
                "jobUrl": f"https://jobs.ashbyhq.com/co{board}/ab-{n}", "descriptionHtml": description(n), "compensation": None}
    if kind == "recruitee":
        return {"id": n, "title": title, "location": "Amsterdam", "locations": [], "remote": False, "hybrid": True,
                "description": description(n), "requirements": "", "careers_url": f"https://co.recruitee.com/o/{n}",
                "published_at": "2026-09-01 10:00:00 UTC", "company_name": f"Co {board}", "salary": {}}
    return {"@context": "https://schema.org", "@type": "JobPosting", "title": title, "identifier": {"@type": "PropertyValue", "value": n},
            "description": description(n), "datePosted": "2026-09-01", "hiringOrganization": {"@type": "Organization", "name": f"Co {board}"},
            "jobLocation": {"@type": "Place", "address": {"@type": "PostalAddress", "addressLocality": "上海", "addressCountry": "CN"}},
            "baseSalary": {"@type": "MonetaryAmount", "value": "20-30K·14薪"}, "employmentType": "FULL_TIME"}


def reply(body: bytes, content_type: str = "application/json") -> Reply:
    return Reply(body=body, etag='"' + hashlib.sha1(body).hexdigest()[:16] + '"', content_type=content_type)


def serve(server: FixtureServer, boards: int, total: int) -> list[dict]:
    """Register every board's routes; return the sources-file entries for them."""
    per_board = total // boards
    entries = []
    for b in range(boards):
        kind = KINDS[b % len(KINDS)]
        jobs = [job(kind, b, i) for i in range(per_board)]
        name = f"{kind}-{b}"
        if kind == "greenhouse":
            server.route(f"/v1/boards/b{b}/jobs", reply(json.dumps({"jobs": jobs, "meta": {"total": len(jobs)}}).encode()))
            entries.append({"name": name, "kind": kind, "board": f"b{b}", "base_url": server.base})
        elif kind == "lever":
            for skip in range(0, len(jobs) + 1, 100):
                server.route(f"/v0/postings/b{b}?mode=json&skip={skip}&limit=100",
                             reply(json.dumps(jobs[skip:skip + 100]).encode()))
            entries.append({"name": name, "kind": kind, "company": f"b{b}", "base_url": server.base})
        elif kind == "ashby":
            server.route(f"/posting-api/job-board/b{b}", reply(json.dumps({"apiVersion": "1", "jobs": jobs}).encode()))
            entries.append({"name": name, "kind": kind, "board": f"b{b}", "base_url": server.base})
        elif kind == "recruitee":
            server.route(f"/r{b}/api/offers/", reply(json.dumps({"offers": jobs}).encode()))
            entries.append({"name": name, "kind": kind, "company": f"b{b}", "base_url": server.url(f"/r{b}")})
        else:
            pages = [jobs[k:k + 25] for k in range(0, len(jobs), 25)]
            for p, page in enumerate(pages):
                links = "".join(f'<li><a href="/s{b}/jobs/{j["identifier"]["value"]}.html">{j["title"]}</a></li>' for j in page)
                nxt = f'<link rel="next" href="/s{b}/careers?page={p + 1}">' if p + 1 < len(pages) else ""
                path = f"/s{b}/careers" + (f"?page={p}" if p else "")
                server.route(path, reply(f"<html><head>{nxt}</head><body><ul>{links}</ul></body></html>".encode(), "text/html"))
                for j in page:
                    body = (f'<html><head><script type="application/ld+json">{json.dumps(j, ensure_ascii=False)}</script>'
                            f'</head><body><h1>{j["title"]}</h1>{j["description"]}</body></html>')
                    server.route(f"/s{b}/jobs/{j['identifier']['value']}.html", reply(body.encode(), "text/html"))
            entries.append({"name": name, "kind": kind, "start_url": server.url(f"/s{b}/careers"), "follow": f"/s{b}/jobs/"})
    for e in entries:
        e["rate_limit"] = 100000
    return entries


def run_all(configs, client, states=None):  # noqa: ANN001, ANN201
    started = time.perf_counter()
    results = [fetch_source(c, client, state=(states or {}).get(c.name)) for c in configs]
    elapsed = time.perf_counter() - started
    return results, elapsed


def totals(results) -> dict:  # noqa: ANN001
    return {"postings": sum(len(r.postings) for r in results), "requests": sum(r.requests for r in results),
            "not_modified": sum(r.not_modified for r in results), "bytes": sum(r.bytes for r in results),
            "complete": sum(r.complete for r in results)}


def bench_record(configs, results) -> None:  # noqa: ANN001
    try:
        import psycopg

        from jobpipe.db import connect, migrate, with_database
        from jobpipe.db.connection import database_url
        from jobpipe.sources import record_fetch
        base = database_url()
    except Exception as exc:  # noqa: BLE001
        print(f"record_fetch: skipped (no database: {exc})")
        return
    name = f"jobpipe_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = with_database(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        url = with_database(base, name)
        migrate(url)
        with connect(url) as conn:
            for label in ("first record (all new)", "re-record (unchanged)"):
                started = time.perf_counter()
                new = sum(record_fetch(conn, c, "2026-10-01", r).new_payloads for c, r in zip(configs, results))
                elapsed = time.perf_counter() - started
                n = sum(len(r.postings) for r in results)
                print(f"record_fetch, {label}: {n} postings, {new} new rows in {elapsed:.2f}s = {n / elapsed:,.0f} postings/s")
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def bench_file() -> None:
    path = SHARED / "eval" / "postings.jsonl"
    if not path.exists():
        print("file kind: ../shared/data/eval/postings.jsonl absent, skipped")
        return
    (config,) = parse_sources({"sources": [{"name": "import", "kind": "file", "path": str(path), "format": "jsonl",
                                            "fields": {"external_id": "id", "title": "title", "company": "company",
                                                       "location": "location", "salary": "salary_text",
                                                       "employment_type": "employment_type_text",
                                                       "description": "description", "url": "url", "posted_at": "posted_at"}}]},
                              ROOT / "sources.yaml")
    rows = sum(1 for line in path.open(encoding="utf-8", newline="\n") if line.strip())
    started = time.perf_counter()
    result = fetch_source(config)
    elapsed = time.perf_counter() - started
    titled = sum(1 for p in result.postings if extract("file", p.payload).title)
    print(f"file kind on eval/postings.jsonl: {len(result.postings)}/{rows} rows ingested (complete={result.complete}, "
          f"{titled} with a title) in {elapsed:.2f}s = {len(result.postings) / elapsed:,.0f} rows/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postings", type=int, default=5000)
    parser.add_argument("--boards", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    _ = load_sources  # the loader is exercised via parse_sources below
    server = FixtureServer().start()
    try:
        entries = serve(server, args.boards, args.postings)
        configs = parse_sources({"sources": entries}, ROOT / "bench.yaml")
        with PoliteClient(rate_limit=100000, max_concurrency=args.concurrency, timeout=10) as client:
            first, t1 = run_all(configs, client)
            states = {c.name: r.pages for c, r in zip(configs, first)}
            second, t2 = run_all(configs, client, states)
        a, b = totals(first), totals(second)
        print(f"boards: {args.boards} ({', '.join(KINDS)}), postings served: {args.postings}, concurrency {args.concurrency}")
        print(f"run 1 (cold):      {a['postings']} postings, {a['requests']} requests, {a['bytes'] / 1e6:.1f} MB parsed, "
              f"{t1:.2f}s = {a['postings'] / t1:,.0f} postings/s (complete sources: {a['complete']}/{len(configs)})")
        print(f"run 2 (unchanged): {b['postings']} postings, {b['requests']} requests ({b['not_modified']} x 304), "
              f"{b['bytes'] / 1e6:.3f} MB parsed, {t2:.2f}s (complete sources: {b['complete']}/{len(configs)})")
        print(f"unchanged re-run / first run: requests {b['requests'] / a['requests']:.2f}, "
              f"bytes parsed {b['bytes'] / max(a['bytes'], 1):.4f}, time {t2 / t1:.2f}")
        started = time.perf_counter()
        n = sum(1 for r in first for p in r.postings if extract(p.format, p.payload).title)
        t3 = time.perf_counter() - started
        print(f"extract() alone: {n} payloads in {t3:.2f}s = {n / t3:,.0f} payloads/s")
        bench_record(configs, first)
    finally:
        server.stop()
    bench_file()


if __name__ == "__main__":
    main()

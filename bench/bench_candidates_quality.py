"""Match quality: jobpipe's candidate matches against a vector-only and a BM25 baseline, in one run.

    python bench/bench_candidates_quality.py [--part vanetik|eval|both] [--per-category 4] [--pool FILE]

1. ``vanetik``: ../shared/data/matching/vanetik_vacancy_resume. Its 5 vacancies are postings
   (through the normalizer and the store), CVs 1-30 are candidates (their .docx files through
   the resume reader, redaction and profiling). For each CV the 5 vacancies are ranked by
   jobpipe's match score, by the cosine similarity of the raw resume and vacancy vectors
   (vector-only) and by BM25 of the resume's words over the vacancies; each ranking is compared
   with each annotator's (mean Spearman rho and NDCG@5), beside the annotators' agreement and a
   reference that ignores the CV (every CV gets the vacancies in the file's order). An
   annotation array gives, for vacancy 1..5 in 5_vacancies.csv order, the place an annotator
   gave it (1 best; ties occur); NDCG gains are 2^(5 - place) - 1.
2. ``eval``: the eval corpus (4,825 postings) and resumes of ../shared/data/resumes
   (UpdatedResumeDataSet: 25 categories; the first ``--per-category`` distinct resumes of each).
   Per category, precision@10 of the matches whose posting belongs to that occupation, by the
   labels in bench/labels/resume_category_postings.jsonl (written by hand for this bench:
   category, posting id, relevant, reason). All three methods show one posting per duplicate
   group. A diagnostic line beside them (not a baseline): the ranking by jobpipe's semantic part
   alone, its stored candidate vectors against the job vectors. ``--pool FILE`` writes the top-10 postings of every method that have no label yet,
   to be judged and added to the labels file.

Held out: the weights and choices of the match score were developed looking only at the dev
part; each figure is also printed for the held-out part, which nobody looked at while tuning: a
resume category or a vanetik CV (``cv<n>``) is held out when the first byte of the SHA-256 of its
name is divisible by 3 (``held_out``): 9 of the 25 categories, 14 of the 30 CVs.

The embedding model is the project's default (``JOBPIPE_EMBEDDER``/``JOBPIPE_EMBEDDING_MODEL``);
eval-corpus vectors are cached under $TMPDIR (bench/search_eval_loader.py).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from jobpipe.candidates import CandidatePreferences, CandidateRecord, parse_resume, read_matches, upsert_candidate  # noqa: E402
from jobpipe.candidates.documents import read_file  # noqa: E402
from jobpipe.candidates.matching import refresh_matches  # noqa: E402
from jobpipe.db import connect, migrate, with_database  # noqa: E402
from jobpipe.db.connection import database_url  # noqa: E402
from jobpipe.pipeline.candidates import embed_candidates  # noqa: E402
from jobpipe.text.tokenize import tokenize  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
VANETIK = SHARED / "matching" / "vanetik_vacancy_resume"
RESUMES_CSV = SHARED / "resumes" / "en_UpdatedResumeDataSet" / "UpdatedResumeDataSet.csv"
EVAL_POSTINGS = SHARED / "eval" / "postings.jsonl"
LABELS = ROOT / "bench" / "labels" / "resume_category_postings.jsonl"


# ---------------------------------------------------------------- shared helpers
def held_out(name: str) -> bool:
    """Whether a resume category or a vanetik CV id is in the held-out part (fixed by its name)."""
    import hashlib

    return hashlib.sha256(name.encode("utf-8")).digest()[0] % 3 == 0


#: The Vanetik reference ranking's name (``bench_vanetik``).
FILE_ORDER = "file order"

PARTS = (("all", lambda name: True), ("dev", lambda name: not held_out(name)), ("held-out", held_out))


def fresh_database(name: str) -> str:
    base = database_url()
    with psycopg.connect(with_database(base, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    url = with_database(base, name)
    migrate(url)
    return url


def embedder() -> Any:
    from jobpipe.embedding import get_embedder

    return get_embedder()


def ranks(values: list[float]) -> list[float]:
    """1-based ranks of ``values`` (smallest first), ties averaged."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(x: list[float], y: list[float]) -> float:
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx, vy = sum((a - mx) ** 2 for a in rx), sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy) if vx and vy else 0.0


def ndcg_at(order: list[int], places: list[int], k: int = 5) -> float:
    """NDCG@k of a ranking (vacancy indexes, best first) against an annotator's places (1 = best)."""
    gain = [2 ** (len(places) - p) - 1 for p in places]
    dcg = sum(gain[v] / math.log2(i + 2) for i, v in enumerate(order[:k]))
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gain, reverse=True)[:k]))
    return dcg / ideal if ideal else 0.0


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over jobpipe's tokens (jieba for Chinese, words otherwise)."""

    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [collections.Counter(tokenize(d)) for d in docs]
        self.lengths = [sum(c.values()) for c in self.docs]
        self.avg = sum(self.lengths) / max(1, len(self.lengths))
        df: collections.Counter[str] = collections.Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[int]] = collections.defaultdict(list)
        for i, c in enumerate(self.docs):
            for t in c:
                self.postings[t].append(i)

    def scores(self, query: str) -> np.ndarray:
        out = np.zeros(len(self.docs))
        for term in collections.Counter(tokenize(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for i in self.postings[term]:
                tf = self.docs[i][term]
                out[i] += idf * tf * (self.k1 + 1) / (tf + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg))
        return out


def add_candidate(conn: psycopg.Connection, candidate_id: str, text: str, names: tuple[str, ...] = ()) -> None:
    """A resume as a file of it would be read (the reader's cleaning: mojibake, invisible characters)."""
    from jobpipe.candidates.documents import read_bytes

    text = read_bytes(text.encode("utf-8"), ".txt").text
    record = CandidateRecord(parse_resume(candidate_id, text, names), CandidatePreferences(), origin="cli")
    upsert_candidate(conn, record)


def job_vectors(conn: psycopg.Connection, model: str) -> tuple[list[int], np.ndarray]:
    from pgvector.psycopg import register_vector

    register_vector(conn)
    rows = conn.execute("SELECT e.job_id, e.embedding FROM job_embeddings e JOIN jobs j USING (job_id) "
                        "WHERE e.model = %s AND j.closed_at IS NULL ORDER BY e.job_id", (model,)).fetchall()
    ids = [r[0] for r in rows]
    matrix = np.stack([np.asarray(r[1].to_numpy() if hasattr(r[1], "to_numpy") else r[1], np.float32) for r in rows])
    return ids, matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


# ---------------------------------------------------------------- 1. vanetik
def _annotations() -> tuple[list[list[int]], list[list[int]]]:
    text = (VANETIK / "annotations-for-the-first-30-vacancies.txt").read_text(encoding="utf-8")

    def arrays(name: str) -> list[list[int]]:
        block = re.search(name + r"\s*=\s*(\[.*?\]\])", text, re.S).group(1)   # type: ignore[union-attr]
        return json.loads(re.sub(r"#[^\n]*", "", block))

    return arrays("ANNOTATOR_1_RANKINGS"), arrays("ANNOTATOR_2_RANKINGS")


def bench_vanetik() -> dict[str, Any]:
    from datetime import datetime, timezone

    from jobpipe.models import PostingFields
    from jobpipe.normalize import normalize_posting
    from jobpipe.store import ensure_vector_index, sync_job_embeddings, sync_job_terms, upsert_jobs

    a1, a2 = _annotations()
    vacancies = list(csv.DictReader((VANETIK / "5_vacancies.csv").open(encoding="utf-8")))
    url = fresh_database("jobpipe_bench_candidates_vanetik")
    model = embedder()
    started = time.perf_counter()
    with connect(url) as conn:
        postings = [normalize_posting(PostingFields(title=v["job_title"], description=v["job_description"]),
                                      source="vanetik", external_id=v["id"], fetched_at=datetime.now(timezone.utc))
                    for v in vacancies]
        upsert_jobs(conn, postings)
        sync_job_terms(conn, workers=0)
        sync_job_embeddings(conn, model)
        ensure_vector_index(conn, model.model, model.dims)
        order = [v["id"] for v in vacancies]
        job_id = dict(conn.execute("SELECT external_id, job_id FROM jobs").fetchall())
        raw_texts = {}
        for n in range(1, 31):
            read, _ = read_file(VANETIK / "CV" / f"{n}.docx")
            raw_texts[n] = read.text
            add_candidate(conn, f"cv{n}", read.text, read.names)
        conn.commit()
        embed_candidates(conn, model)
        refresh_matches(conn, top_n=5, reserve=0)
        ids, matrix = job_vectors(conn, model.model)
        vec_by_job = {j: matrix[i] for i, j in enumerate(ids)}
        bm25 = BM25([f"{v['job_title']}\n{v['job_description']}" for v in vacancies])
        # A reference, not a baseline: one fixed ranking for every CV, the vacancies in the file's
        # order. What it scores is what an annotator's places owe to that order, not to the CV.
        rankings: dict[str, dict[int, list[float]]] = {"jobpipe": {}, "vector-only": {}, "bm25": {},
                                                       FILE_ORDER: {n: [5.0, 4.0, 3.0, 2.0, 1.0] for n in range(1, 31)}}
        resume_vectors = model.embed_documents([raw_texts[n] for n in range(1, 31)])
        for n in range(1, 31):
            listed = {r.external_id: r.score for r in read_matches(conn, f"cv{n}", top_k=5, top_n=5).results}
            rankings["jobpipe"][n] = [listed.get(ext, -1.0) for ext in order]
            q = resume_vectors[n - 1] / np.linalg.norm(resume_vectors[n - 1])
            rankings["vector-only"][n] = [float(vec_by_job[job_id[ext]] @ q) for ext in order]
            rankings["bm25"][n] = list(bm25.scores(raw_texts[n]))
    seconds = time.perf_counter() - started

    def evaluate(scores: dict[int, list[float]], annotator: list[list[int]], part: Any) -> tuple[float, float]:
        rhos, ndcgs = [], []
        for n, places in enumerate(annotator, start=1):
            if not part(f"cv{n}"):
                continue
            s = scores[n]
            rhos.append(spearman([-x for x in s], [float(p) for p in places]))
            order_idx = sorted(range(5), key=lambda i: -s[i])
            ndcgs.append(ndcg_at(order_idx, places))
        return float(np.mean(rhos)), float(np.mean(ndcgs))

    results = {part: {name: {"a1": evaluate(s, a1, keep), "a2": evaluate(s, a2, keep)}
                      for name, s in rankings.items()} for part, keep in PARTS}
    agreement = float(np.mean([spearman([float(x) for x in p], [float(y) for y in q]) for p, q in zip(a1, a2)]))
    return {"results": results, "agreement": agreement, "model": model.model, "cvs": 30, "seconds": seconds}


# ---------------------------------------------------------------- 2. eval corpus x resume categories
def _category_resumes(per_category: int) -> dict[str, list[str]]:
    by_cat: dict[str, list[str]] = collections.defaultdict(list)
    seen: set[str] = set()
    with RESUMES_CSV.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            text = row["Resume"].strip()
            if text in seen or len(by_cat[row["Category"]]) >= per_category:
                continue
            seen.add(text)
            by_cat[row["Category"]].append(text)
    return dict(by_cat)


def load_labels() -> dict[tuple[str, str], bool]:
    if not LABELS.exists():
        return {}
    out = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            row = json.loads(line)
            out[(row["category"], row["id"])] = bool(row["relevant"])
    return out


def _collapse(ids: list[int], dedupe: dict[int, str | None], k: int) -> list[int]:
    out, groups = [], set()
    for j in ids:
        key = dedupe.get(j)
        if key is not None and key in groups:
            continue
        if key is not None:
            groups.add(key)
        out.append(j)
        if len(out) == k:
            break
    return out


#: A diagnostic, not a baseline: jobpipe's semantic part alone (the stored candidate vector, of its
#: embedding text, against the job vectors), to tell the candidate text's share of a loss from the
#: other parts'.
SEMANTIC_ALONE = "semantic part alone"


def bench_eval(per_category: int, pool_file: Path | None) -> dict[str, Any]:
    from search_eval_loader import build_vector_index, load_eval_corpus

    labels = load_labels()
    url = fresh_database("jobpipe_bench_candidates_eval")
    model = embedder()
    categories = _category_resumes(per_category)
    with connect(url) as conn:
        eval_id, _ = load_eval_corpus(conn, EVAL_POSTINGS, model)
        build_vector_index(conn, model.model, model.dims)
        started = time.perf_counter()
        resumes: dict[str, tuple[str, str]] = {}
        for cat, texts in sorted(categories.items()):
            for i, text in enumerate(texts):
                cid = f"{re.sub(r'[^a-z0-9]+', '-', cat.lower())}-{i}"
                resumes[cid] = (cat, text)
                add_candidate(conn, cid, text)
        conn.commit()
        embed_candidates(conn, model)
        refresh = refresh_matches(conn)
        build_seconds = time.perf_counter() - started
        dedupe = dict(conn.execute("SELECT job_id, dedupe_key FROM jobs").fetchall())
        ids, matrix = job_vectors(conn, model.model)
        docs = {j: t for j, t in conn.execute(
            "SELECT job_id, title || E'\\n' || coalesce(company, '') || E'\\n' || description_text FROM jobs "
            "WHERE closed_at IS NULL")}
        doc_ids = sorted(docs)
        bm25 = BM25([docs[j] for j in doc_ids])
        raw = model.embed_documents([text for _, text in resumes.values()])
        own = {cid: np.asarray(v.to_numpy() if hasattr(v, "to_numpy") else v, np.float32) for cid, v in conn.execute(
            "SELECT candidate_id, embedding FROM candidate_embeddings WHERE model = %s", (model.model,))}
        top: dict[str, dict[str, list[str]]] = {"jobpipe": {}, "vector-only": {}, "bm25": {}, SEMANTIC_ALONE: {}}
        for (cid, (_cat, text)), vector in zip(resumes.items(), raw):
            top["jobpipe"][cid] = [eval_id[r.job_id] for r in read_matches(conn, cid, top_k=10).results]
            sims = matrix @ (vector / np.linalg.norm(vector))
            top["vector-only"][cid] = [eval_id[j] for j in _collapse([ids[i] for i in np.argsort(-sims)[:200]],
                                                                     dedupe, 10)]
            sims = matrix @ (own[cid] / np.linalg.norm(own[cid]))
            top[SEMANTIC_ALONE][cid] = [eval_id[j] for j in _collapse([ids[i] for i in np.argsort(-sims)[:200]],
                                                                      dedupe, 10)]
            scores = bm25.scores(text)
            top["bm25"][cid] = [eval_id[j] for j in _collapse([doc_ids[i] for i in np.argsort(-scores)[:200]],
                                                              dedupe, 10)]
    per_cat: dict[str, dict[str, float]] = {}
    unjudged: collections.Counter[str] = collections.Counter()
    pool: dict[tuple[str, str], set[str]] = collections.defaultdict(set)
    for method, lists in top.items():
        for cid, posting_ids in lists.items():
            cat = resumes[cid][0]
            hits = 0
            for pid in posting_ids[:10]:
                judged = labels.get((cat, pid))
                if judged is None:
                    unjudged[method] += 1
                    pool[(cat, pid)].add(method)
                hits += bool(judged)
            per_cat.setdefault(cat, {}).setdefault(method, 0.0)
            per_cat[cat][method] += hits / 10 / len(categories[cat])
    if pool_file is not None:
        with connect(url) as conn:
            info = {eid: (t, c, s, d) for eid, t, c, s, d in conn.execute(
                "SELECT external_id, title, company, skills, left(description_text, 300) FROM jobs")}
        with pool_file.open("w", encoding="utf-8") as f:
            for (cat, pid), methods in sorted(pool.items()):
                t, c, s, d = info.get(pid, (None, None, [], ""))
                f.write(json.dumps({"category": cat, "id": pid, "title": t, "company": c, "skills": s,
                                    "description": d, "methods": sorted(methods)}, ensure_ascii=False) + "\n")
    return {"per_category": per_cat, "unjudged": dict(unjudged), "model": model.model, "candidates": len(resumes),
            "build_seconds": build_seconds, "refresh": refresh.as_metadata(), "pool": len(pool)}


# ---------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("vanetik", "eval", "both"), default="both")
    parser.add_argument("--per-category", type=int, default=4)
    parser.add_argument("--pool", type=Path, help="write unjudged top-10 postings here (JSONL) for labelling")
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print("needs ../shared/data (not present in this checkout)")
        return 2
    methods = ("jobpipe", "vector-only", "bm25")
    if args.part in ("vanetik", "both"):
        v = bench_vanetik()
        print(f"== vanetik vacancy/resume set: {v['cvs']} CVs x 5 vacancies, model {v['model']} ({v['seconds']:.1f} s)")
        print(f"{'CVs':<15}{'method':<14}{'rho a1':>9}{'rho a2':>9}{'ndcg@5 a1':>11}{'ndcg@5 a2':>11}")
        for part, keep in PARTS:
            label = f"{part} ({sum(keep(f'cv{n}') for n in range(1, 31))})"
            for m in methods:
                r = v["results"][part][m]
                print(f"{label:<15}{m:<14}{r['a1'][0]:>9.3f}{r['a2'][0]:>9.3f}{r['a1'][1]:>11.3f}{r['a2'][1]:>11.3f}")
        print(f"reference, the same ranking for every CV ({FILE_ORDER}: the vacancies as 5_vacancies.csv lists them):")
        for part, keep in PARTS:
            label = f"{part} ({sum(keep(f'cv{n}') for n in range(1, 31))})"
            r = v["results"][part][FILE_ORDER]
            print(f"{label:<15}{FILE_ORDER:<14}{r['a1'][0]:>9.3f}{r['a2'][0]:>9.3f}{r['a1'][1]:>11.3f}{r['a2'][1]:>11.3f}")
        print(f"annotator agreement (rho, CVs 1-20): {v['agreement']:.3f}")
    if args.part in ("eval", "both"):
        e = bench_eval(args.per_category, args.pool)
        print(f"== eval corpus x resume categories: {e['candidates']} resumes, model {e['model']}, "
              f"matches built in {e['build_seconds']:.1f} s")
        print(f"{'category':<38}" + "".join(f"{m:>13}" for m in methods))
        for cat, row in sorted(e["per_category"].items()):
            label = cat + (" (held out)" if held_out(cat) else "")
            print(f"{label:<38}" + "".join(f"{row.get(m, 0.0):>13.3f}" for m in methods))
        for part, keep in PARTS:
            rows = [row for cat, row in e["per_category"].items() if keep(cat)]
            label = f"mean P@10, {part} ({len(rows)})"
            print(f"{label:<38}" + "".join(f"{np.mean([r.get(m, 0.0) for r in rows]):>13.3f}" for m in methods))
            wins = collections.Counter(
                "win" if r.get("jobpipe", 0.0) > max(r.get(m, 0.0) for m in methods[1:]) + 1e-9 else
                "loss" if r.get("jobpipe", 0.0) < max(r.get(m, 0.0) for m in methods[1:]) - 1e-9 else "tie"
                for r in rows)
            print(f"{'':<38}jobpipe against the best baseline: {wins['win']} won, {wins['tie']} tied, "
                  f"{wins['loss']} lost")
            print(f"{'':<38}{SEMANTIC_ALONE} (diagnostic): "
                  f"{np.mean([r.get(SEMANTIC_ALONE, 0.0) for r in rows]):.3f}")
        print("unjudged results in the top 10 (counted as not relevant): "
              + ", ".join(f"{m} {e['unjudged'].get(m, 0)}" for m in (*methods, SEMANTIC_ALONE))
              + (f"; {e['pool']} written to {args.pool}" if args.pool else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

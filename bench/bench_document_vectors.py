"""Which text a posting's vector should come from: vector-only rank of the wanted posting.

    python bench/bench_document_vectors.py

For our labelled known-item queries (bench/labels/search_queries.jsonl; development and held-out
splits as in bench_search_quality.py), the query is embedded by the default local model and every
eval posting (../shared/data/eval) by several document texts: the whole embedding text (what the
plain model stores), the head only (title, company, cities, skills), the title only, and sums of
their vectors (``use-multilingual-v3-headline`` is whole text + title). Prints hit@1 / hit@5 /
hit@100 of the exact cosine ranking per split and language. No database; document vectors are
cached under $TMPDIR (bench/search_eval_loader.py), so a re-run costs only the queries.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_search_quality import EVAL, OWN_QUERIES, held_out  # noqa: E402
from search_eval_loader import cached_document_vectors, normalize_records  # noqa: E402

from jobpipe.embedding.local import UseM3Embedder  # noqa: E402
from jobpipe.hashing import embedding_text  # noqa: E402
from jobpipe.models import NormalizedPosting  # noqa: E402


def head_text(p: NormalizedPosting) -> str:
    parts = [p.title] + ([p.company] if p.company else []) + ([" / ".join(p.cities)] if p.cities else [])
    return "\n".join(parts + ([", ".join(sorted(p.skills))] if p.skills else []))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main() -> int:
    if not (EVAL / "postings.jsonl").exists():
        print(f"needs {EVAL}/postings.jsonl (../shared/data is absent)")
        return 1
    records = [json.loads(line) for line in (EVAL / "postings.jsonl").read_text(encoding="utf-8").split("\n")
               if line.strip()]
    postings, _ = normalize_records(records)
    embedder = UseM3Embedder()
    whole = cached_document_vectors(embedder, [embedding_text(p) for p in postings])
    head = cached_document_vectors(embedder, [head_text(p) for p in postings])
    title = cached_document_vectors(embedder, [p.title for p in postings])
    variants = {"whole": whole, "head": head, "title": title, "whole+head": _unit(whole + head),
                "whole+title": _unit(whole + title)}
    position: dict[str, int] = {}
    for i, p in enumerate(postings):
        position.setdefault(p.external_id, i)
    queries = [json.loads(line) for line in OWN_QUERIES.read_text(encoding="utf-8").split("\n") if line.strip()]
    known = [q for q in queries if q["kind"] == "known_item"]
    query_vectors = embedder.embed_queries([q["query"] for q in known])
    print(f"{len(postings)} postings, {len(known)} known-item queries, model {embedder.model}; hit@1 / hit@5 / hit@100")
    print(f"{'split':<12}{'lang':<7}{'n':>4}" + "".join(f"{name:>22}" for name in variants))
    for split in ("development", "held-out"):
        for lang in ("cross", "zh", "en"):
            subset = [i for i, q in enumerate(known) if q["lang"] == lang and held_out(q["qid"]) == (split == "held-out")]
            if not subset:
                continue
            cells = []
            for docs in variants.values():
                ranks = []
                for i in subset:
                    scores = docs @ query_vectors[i]
                    best = max(scores[position[r]] for r in known[i]["relevant"] if r in position)
                    ranks.append(int((scores > best).sum()) + 1)
                r = np.array(ranks)
                cells.append(f"{np.mean(r <= 1):.3f}/{np.mean(r <= 5):.3f}/{np.mean(r <= 100):.3f}")
            print(f"{split:<12}{lang:<7}{len(subset):>4}" + "".join(f"{c:>22}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

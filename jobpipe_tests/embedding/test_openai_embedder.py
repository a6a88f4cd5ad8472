import time

import numpy as np
import pytest

from jobpipe.config import get_settings
from jobpipe.embedding import EmbeddingRequestError, OpenAIEmbedder, TokenHashEmbedder, estimate_tokens, get_embedder
from jobpipe_tests.embedding.fake_openai_server import ServerState, fake_openai_server


def test_embeds_over_http_normalized_in_input_order():
    state = ServerState(dims=16)
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("bge-m3", base_url=url, api_key="sk-test")
        texts = ["python backend", "数据分析师", "python backend engineer"]
        vectors = embedder.embed_documents(texts)
    assert vectors.shape == (3, 16) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vectors, TokenHashEmbedder(16).embed_documents(texts), atol=1e-5)
    assert embedder.dims == 16 and embedder.model == "bge-m3"
    assert state.requests[0]["model"] == "bge-m3" and state.requests[0]["encoding_format"] == "float"
    assert state.auth[0] == "Bearer sk-test"


def test_dims_are_learned_from_the_first_response():
    state = ServerState(dims=24)
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("m", base_url=url)
        assert embedder.dims == 24
        assert len(state.requests) == 1


def test_retries_429_then_succeeds_waiting_as_the_server_asks():
    state = ServerState(fail_with=[429, 503], retry_after_ms=300)
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("m", base_url=url, dims=16)
        started = time.monotonic()
        vectors = embedder.embed_documents(["a", "b"])
        waited = time.monotonic() - started
    assert vectors.shape == (2, 16)
    assert len(state.requests) == 3 and embedder.retries == 2 and embedder.requests == 3
    assert waited >= 0.55   # two waits of the 300 ms the server asked for


def test_gives_up_after_max_retries_and_does_not_retry_client_errors():
    state = ServerState(fail_with=[500, 500, 500])
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("m", base_url=url, dims=16, max_retries=2)
        with pytest.raises(EmbeddingRequestError):
            embedder.embed_documents(["a"])
        assert len(state.requests) == 3
    bad = ServerState(fail_with=[400])
    with fake_openai_server(bad) as url:
        embedder = OpenAIEmbedder("m", base_url=url, dims=16)
        with pytest.raises(EmbeddingRequestError):
            embedder.embed_documents(["a"])
        assert len(bad.requests) == 1


def test_batches_are_bounded_by_count_and_by_tokens():
    state = ServerState()
    long_text = "word " * 400  # 2,000 chars: ~500 estimated tokens
    assert 400 < estimate_tokens(long_text) < 600
    with fake_openai_server(state) as url:
        embedder = OpenAIEmbedder("m", base_url=url, dims=16, max_batch=4, max_batch_tokens=1200)
        by_count = embedder.embed_documents(["short"] * 10)
        count_sizes = [len(r["input"]) for r in state.requests]
        state.requests.clear()
        by_tokens = embedder.embed_documents([long_text] * 5)
        token_sizes = [len(r["input"]) for r in state.requests]
    assert by_count.shape == (10, 16) and by_tokens.shape == (5, 16)
    assert count_sizes == [4, 4, 2]
    assert token_sizes == [2, 2, 1]  # a third long text would exceed 1,200 tokens


def test_get_embedder_builds_the_openai_client_from_the_environment(monkeypatch):
    state = ServerState(dims=16)
    with fake_openai_server(state) as url:
        monkeypatch.setenv("JOBPIPE_EMBEDDER", "openai")
        monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "text-embedding-3-small")
        monkeypatch.setenv("JOBPIPE_OPENAI_BASE_URL", url)
        monkeypatch.setenv("JOBPIPE_OPENAI_API_KEY", "sk-env")
        embedder = get_embedder(get_settings())
        assert isinstance(embedder, OpenAIEmbedder)
        assert embedder.embed_queries(["hello"]).shape == (1, 16)
    assert state.auth == ["Bearer sk-env"] and state.requests[0]["model"] == "text-embedding-3-small"

"""Tokens: what search and the keyword terms agree a word is."""

from __future__ import annotations

import pytest

from jobpipe.embedding.hashed import TokenHashEmbedder
from jobpipe.text.tokenize import tokenize


@pytest.mark.parametrize(("text", "number"), [
    ("$8,000 - $9,500 a month", ["8000", "9500"]),
    ("年薪 1,250,000 元", ["1250000"]),
    ("CHF 10'000", ["10000"]),
    ("月薪8，000元", ["8000"]),                # full-width comma, through NFKC
    ("salary: '12,000'", ["12000"]),
])
def test_a_number_with_thousands_separators_is_one_token(text, number):
    tokens = tokenize(text)
    assert all(n in tokens for n in number)
    assert "000" not in tokens and "500" not in tokens and "250" not in tokens


def test_the_grouped_and_the_plain_spelling_give_the_same_tokens():
    assert tokenize("USD 120,000 - 150,000") == tokenize("USD 120000 - 150000")


@pytest.mark.parametrize(("text", "tokens"), [
    ("2,5 Jahre", ["2", "5", "jahre"]),          # a decimal comma
    ("12,34", ["12", "34"]),                      # groups of another width
    ("12,345,67", ["12", "345", "67"]),           # a group too short later on: not a grouped number
    ("1,2,345", ["1", "2", "345"]),               # a list, not a number
    ("1,000'000", ["1", "000", "000"]),           # two different separators
    ("8 000", ["8", "000"]),                      # spaced groups are two numbers as often as one
    ("python,java", ["python", "java"]),
])
def test_what_is_not_a_grouped_number_is_tokenized_as_before(text, tokens):
    assert tokenize(text) == tokens


def test_a_grouped_number_is_not_glued_to_a_version_or_decimal_before_it():
    assert tokenize("v1.2,345") == ["v1.2", "345"]


def test_the_token_hash_embedder_keeps_its_vectors():
    # Stored token-hash vectors must equal freshly computed ones, whatever the tokenizer learns.
    assert tokenize("$8,000", search_forms=False) == ["8", "000"]
    embedder = TokenHashEmbedder(dims=64)
    apart = embedder.embed_documents(["8 000"])[0]
    assert (embedder.embed_documents(["8,000"])[0] == apart).all()


def test_traditional_characters_are_read_as_simplified_ones():
    assert tokenize("智能合約工程師") == tokenize("智能合约工程师")
    assert tokenize("資料庫 後端開發") == tokenize("资料库 后端开发")
    # characters that are also simplified forms stay as written: 宁波, 什么
    assert tokenize("宁波 什么") == ["宁波", "什么"]


def test_the_token_hash_embedder_keeps_traditional_characters():
    assert tokenize("智能合約", search_forms=False) != tokenize("智能合约", search_forms=False)
    embedder = TokenHashEmbedder(dims=64)
    assert (embedder.embed_documents(["智能合約"])[0] != embedder.embed_documents(["智能合约"])[0]).any()

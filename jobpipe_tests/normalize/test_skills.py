from __future__ import annotations

import pytest

from jobpipe.normalize.skills import all_skills, canonical_skill, extract_skills


@pytest.mark.parametrize("name,expected", [
    ("golang", "Go"), ("Go", "Go"), ("k8s", "Kubernetes"), ("Kubernetes", "Kubernetes"), ("大模型", "LLM"),
    ("LLM", "LLM"), ("前端", "Frontend"), ("机器学习", "Machine Learning"), ("machine learning", "Machine Learning"),
    ("ML", "Machine Learning"), ("pytorch", "PyTorch"), ("postgres", "PostgreSQL"), ("nodejs", "Node.js"),
    ("c++", "C++"), ("C#", "C#"), ("R", "R"), ("智能合约", "Smart Contracts"), ("产品经理", "Product Management"),
    ("basket weaving", None), ("", None), (None, None),
])
def test_canonical_skill(name, expected):
    assert canonical_skill(name) == expected


def test_extracts_bilingual_skills():
    text = "高级Golang工程师\n熟悉 k8s、Docker，了解大模型与 RAG；有前端（React/Vue）经验者优先。"
    skills = extract_skills(text)
    for s in ["Go", "Kubernetes", "Docker", "LLM", "RAG", "Frontend", "React", "Vue"]:
        assert s in skills
    assert skills.index("Go") < skills.index("Kubernetes")   # order of first mention


def test_go_is_the_language_only_when_it_is():
    assert "Go" in extract_skills("Backend services in Go and Python")
    assert "Go" in extract_skills("熟悉Go语言")
    assert "Go" not in extract_skills("Go to market with us. Let's go ahead. We go the extra mile.")
    assert "Go" not in extract_skills("Experience with Google Cloud and MongoDB")


def test_single_letter_languages_need_context():
    assert {"Python", "R", "SQL"} <= set(extract_skills("Tools: Python, R, SQL"))
    assert "R" not in extract_skills("Our R&D team ships products")
    assert "C" not in extract_skills("负责C端产品增长和C轮融资后的团队建设")
    assert "C" in extract_skills("精通 C/C++ 与 Linux 内核开发")


def test_case_sensitive_words_are_not_matched_in_prose():
    skills = extract_skills("We react quickly and spark ideas with swift decisions.")
    assert not {"React", "Spark", "Swift"} & set(skills)
    assert {"React", "Spark", "Swift"} <= set(extract_skills("Stack: React, Spark, Swift"))


def test_phrases_with_separators():
    skills = extract_skills("machine-learning, CI/CD pipelines, A/B testing, Node.js.")
    assert {"Machine Learning", "CI/CD", "A/B Testing", "Node.js"} <= set(skills)


def test_taxonomy_is_large_and_every_extracted_name_is_canonical():
    names = set(all_skills())
    assert len(names) >= 250
    for s in extract_skills("Python Java Go Rust 数据分析 深度学习 Kafka Redis 产品经理 市场营销 财务分析 Figma"):
        assert s in names


def test_empty():
    assert extract_skills("") == [] and extract_skills(None) == []


def test_skills_at_the_same_position_come_in_the_same_order_in_every_process():
    import os
    import subprocess
    import sys

    code = "from jobpipe.normalize.skills import extract_skills; print(extract_skills('JavaScript and Java, Go'))"
    outputs = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
        for seed in (0, 1, 2)
    }
    assert len(outputs) == 1
    assert outputs.pop().strip() == "['Java', 'JavaScript', 'Go']"


def test_a_skill_named_by_several_phrases_is_placed_at_the_earliest() -> None:
    """Whichever of a skill's phrases comes first in the text places the skill (it used to be whichever
    phrase the word sets happened to visit first, so the order changed with the hash seed)."""
    from jobpipe.normalize.skills import _index

    single, multi = _index()
    phrases: dict[str, list[str]] = {}
    for entries in multi.values():
        for _rest, phrase, canonical in entries:
            phrases.setdefault(canonical, []).append(phrase)
    checked = 0
    for canonical, names in sorted(phrases.items()):
        words = {w for name in names for w in name.split()}
        if len(names) < 2 or any(w in single for w in words):
            continue
        for first, last in ((names[0], names[-1]), (names[-1], names[0])):
            found = extract_skills(f"{first}. Docker. {last}.")
            assert canonical in found and found.index(canonical) < found.index("Docker"), (canonical, first, last)
        checked += 1
    assert checked >= 5

"""The per-value and per-description caches in posting.py must give what the plain code gives,
and a cached value must not leak between postings (shared objects are immutable)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timezone

from jobpipe.models import PostingFields
from jobpipe.normalize import posting as P
from jobpipe.normalize.experience import parse_degree, parse_experience
from jobpipe.normalize.skills import extract_skills
from jobpipe.normalize.text import clean_inline, clean_text

FETCHED = datetime(2026, 3, 10, 12, tzinfo=timezone.utc)

_DESCRIPTIONS = [
    "## 职责\n- 基于大模型开发 Agent\n- 熟悉 Python、Go 语言\n\n## 要求\n本科及以上学历，3年以上经验",
    "<p>We need a <b>Senior</b> engineer.</p><ul><li>5+ years of experience with Kubernetes</li>"
    "<li>BS/MS in CS; machine learning a plus</li></ul>",
    "Data scientist. Master's degree required; 2-4 years experience in R, Python, SQL and data-science tooling.",
    "",
    "Σ ΟΔΟΣ\n\u200bnode.js &amp; c++ developer, no degree required",
]
_TITLES = ["AI Agent 开发实习生", "Senior ML Engineer (Remote)", "", "Data Scientist II"]


def _plain_requirements(description: str) -> tuple[int | None, int | None, str | None]:
    """What normalize_posting computed before the cache: both excerpts from one hint scan."""
    lower = description.lower()
    hints = P._hint_positions(lower)
    exp = parse_experience(P._excerpt(description, hints, P._EXPERIENCE_HINT, radius=60, limit=2))
    return exp[0], exp[1], parse_degree(P._excerpt(description, hints, P._DEGREE_HINT))


def test_description_caches_equal_the_plain_parsers():
    for raw in _DESCRIPTIONS:
        description = clean_text(raw)
        assert P._clean_description(raw) == description
        assert P._lowercase(description) == description.lower()
        plain = _plain_requirements(description)
        for _ in range(2):   # a miss, then a hit
            assert P._description_requirements(description, True, True) == plain
            assert P._description_requirements(description, True, False) == (plain[0], plain[1], None)
            assert P._description_requirements(description, False, True) == (None, None, plain[2])
        for title in _TITLES:
            t = P.clean_title(title)
            assert list(P._skills(t, description)) == extract_skills(f"{t}\n{description}")


def test_value_caches_equal_the_plain_cleaners():
    for name in ["Acme Corp\n3.8", "  某某科技有限公司 ", "Ｆｕｌｌｗｉｄｔｈ Inc -", "-|·"]:
        assert P.clean_company(name) == P._clean_company.__wrapped__(name)
        assert P.clean_company(name) == P.clean_company(name)
    for title in _TITLES + ["<b>Lead</b>\nEngineer"]:
        assert P.clean_title(title) == clean_inline(title)
    for location in ["Beijing\nShanghai", "深圳/远程", "  ", "<p>Remote</p>"]:
        assert P._clean_location(location) == (clean_text(location).replace("\n", " / ") or None)


def test_repeated_description_gives_the_same_posting_and_no_shared_mutable_state():
    fields = PostingFields(title="Senior ML Engineer", company="Acme\n4.1", location="Remote", description=_DESCRIPTIONS[1])
    first = P.normalize_posting(fields, source="t", external_id="1", fetched_at=FETCHED)
    assert "Kubernetes" in first.skills and first.degree == "bachelor" and first.experience_min == 5
    first.skills.append("mutated")
    again = P.normalize_posting(fields, source="t", external_id="1", fetched_at=FETCHED)
    assert "mutated" not in again.skills
    first.skills.pop()
    assert asdict(again) == asdict(first)


def test_fields_that_state_requirements_override_the_description():
    fields = PostingFields(title="Engineer", description=_DESCRIPTIONS[0], experience_text="1-3年", degree_text="硕士")
    p = P.normalize_posting(fields, source="t", external_id="1", fetched_at=FETCHED)
    assert (p.experience_min, p.experience_max, p.degree) == (1, 3, "master")
    bare = P.normalize_posting(PostingFields(title="Engineer", description=_DESCRIPTIONS[0]), source="t", external_id="2",
                               fetched_at=FETCHED)
    assert (bare.experience_min, bare.degree) == (3, "bachelor")

"""The committed demo data: enough postings, both languages, real variety, consistent ids."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from jobpipe.demo import (
    DEMO_DATA_DIR,
    DEMO_QUERY,
    DEMO_RESUMES,
    DEMO_SOURCES_FILE,
    KNOWN_POSTING,
    KNOWN_POSTING_EN,
    demo_manifest,
    demo_resumes,
)
from jobpipe.text.tokenize import tokenize
from jobpipe_tests.conftest import shared_data_path
from jobpipe_tests.demo.helpers import greenhouse_text, job_postings, ld_blocks, parse_ld, strip_tags

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _is_zh(text: str) -> bool:
    return len(_CJK.findall(text)) > len(text) * 0.2


def _read_postings() -> list[dict]:
    """Every posting read straight from the data files: {source, external_id, title, text, ...}."""
    rows = []
    for path in sorted((DEMO_DATA_DIR / "greenhouse").glob("*.json")):
        for job in json.loads(path.read_text(encoding="utf-8"))["jobs"]:
            employment = next(m["value"] for m in job["metadata"] if m["name"] == "Employment Type")
            rows.append({"source": f"{path.stem}-gh", "external_id": str(job["id"]), "title": job["title"],
                         "text": greenhouse_text(job), "location": job["location"]["name"],
                         "employment": employment, "format": "greenhouse"})
    for path in sorted((DEMO_DATA_DIR / "lever").glob("*.json")):
        for p in json.loads(path.read_text(encoding="utf-8")):
            text = " ".join([strip_tags(p["description"]), *(strip_tags(x["content"]) for x in p["lists"]),
                             p["additionalPlain"]])
            rows.append({"source": f"{path.stem}-lever", "external_id": p["id"], "title": p["text"], "text": text,
                         "location": p["categories"]["location"], "employment": p["categories"]["commitment"],
                         "format": "lever"})
    for page in sorted((DEMO_DATA_DIR / "careers").glob("*/jobs/*.html")):
        slug = page.parts[-3]
        for block in ld_blocks(page.read_text(encoding="utf-8")):
            for p in job_postings(parse_ld(block)[0]):
                loc = p.get("jobLocation")
                loc = loc[0] if isinstance(loc, list) else loc
                rows.append({"source": f"{slug}-site", "external_id": p["identifier"]["value"],
                             "title": p["title"], "text": strip_tags(p["description"]),
                             "location": loc["address"]["addressLocality"] if loc else "TELECOMMUTE",
                             "employment": p["employmentType"], "format": "jsonld", "ld": p})
    return rows


@pytest.fixture(scope="module")
def postings() -> list[dict]:
    return _read_postings()


def test_enough_postings_in_both_languages(postings):
    assert len(postings) >= 180
    langs = Counter("zh" if _is_zh(p["text"]) else "en" for p in postings)
    assert langs["zh"] >= 0.4 * len(postings) and langs["en"] >= 0.4 * len(postings), langs
    assert Counter(p["format"] for p in postings).keys() == {"greenhouse", "lever", "jsonld"}


def test_files_agree_with_manifest(postings):
    manifest = demo_manifest()
    from_files = Counter(p["source"] for p in postings)
    assert from_files == Counter({name: info["postings"] for name, info in manifest["sources"].items()})
    assert {(p["source"], p["external_id"]) for p in postings} == {
        (r["source"], r["external_id"]) for r in manifest["rows"]}
    assert manifest["postings"] == len(postings)


def test_ids_are_unique_per_source(postings):
    keys = [(p["source"], p["external_id"]) for p in postings]
    assert len(keys) == len(set(keys))


def test_variety_of_companies_cities_job_types_and_roles():
    rows = demo_manifest()["rows"]
    assert len({r["company"] for r in rows}) >= 12
    cities = Counter(c for r in rows for c in r["cities"])
    for city in ("Beijing, China", "Shanghai, China", "Shenzhen, China", "Hangzhou, China", "Guangzhou, China",
                 "Chengdu, China", "Singapore", "Hong Kong SAR", "San Francisco, CA", "New York, NY",
                 "London, UK", "Berlin, Germany"):
        assert cities[city] >= 3, city
    assert sum(r["remote"] for r in rows) >= 15
    types = Counter(r["job_type"] for r in rows)
    assert types["full_time"] >= 100 and types["intern"] >= 10 and types["campus"] >= 5 and types["contract"] >= 2
    titles = " ".join(r["title"] for r in rows)
    families = [("后端", "Golang", "服务端"), ("Java",), ("前端",), ("Frontend", "Web"), ("数据开发", "数仓", "大数据"),
                ("Data Engineer", "Analytics Engineer"), ("大模型",), ("LLM", "Large Language"), ("Agent", "智能体"),
                ("产品经理",), ("Product Manager",), ("设计师",), ("Designer",), ("SRE", "运维", "DevOps"),
                ("Site Reliability", "DevOps", "Platform Engineer"), ("数据分析", "商业分析"),
                ("Data Analyst", "Intelligence Analyst"), ("2027届",), ("New Grad", "Graduate"), ("实习",), ("Intern",),
                ("销售",), ("Account Executive", "Sales"), ("运营",), ("Operations", "Customer Success")]
    for family in families:
        assert any(word in titles for word in family), family


def test_salary_formats_are_varied():
    texts = [r["salary_text"] for r in demo_manifest()["rows"] if r["salary_text"]]
    patterns = {
        "K·N薪": r"^\d+-\d+K·1\d薪$", "万/月": r"万/月$", "元/天": r"元/天$", "面议": r"^面议$",
        "以上": r"以上$", "年薪": r"^年薪", "USD a year": r"^\$[\d,]+ - \$[\d,]+ a year$",
        "USD hour": r"an hour$", "GBP": r"^£", "EUR": r"€|^EUR", "HKD": r"^HK", "SGD": r"^S(GD|\$)",
    }
    for name, pattern in patterns.items():
        assert any(re.search(pattern, t) for t in texts), name
    assert sum(1 for r in demo_manifest()["rows"] if not r["salary_text"]) >= 3   # some state no pay


def test_descriptions_are_realistic_length_and_distinct(postings):
    for p in postings:
        if _is_zh(p["text"]):
            assert 250 <= len(_CJK.findall(p["text"])) <= 600, p["title"]
        else:
            assert 120 <= len(p["text"].split()) <= 300, p["title"]
    by_source = {}
    for p in postings:
        assert p["text"] not in by_source.get(p["source"], set()), "duplicate description within a source"
        by_source.setdefault(p["source"], set()).add(p["text"])


def test_cross_posts_repeat_a_board_job_on_the_career_site(postings):
    board = {p["title"] + p["text"]: p for p in postings if p["format"] != "jsonld"}
    pairs = [(board[p["title"] + p["text"]], p) for p in postings
             if p["format"] == "jsonld" and p["title"] + p["text"] in board]
    assert len(pairs) == 3
    for gh, site in pairs:
        assert gh["source"].split("-")[0] == site["source"].split("-")[0]
    assert sum(r["cross_posted"] for r in demo_manifest()["rows"]) == 6


def test_json_ld_variants_are_all_present(postings):
    ld = [p["ld"] for p in postings if p["format"] == "jsonld"]
    assert any(isinstance(p["employmentType"], list) for p in ld)
    assert any(p.get("jobLocationType") == "TELECOMMUTE" and p.get("applicantLocationRequirements") for p in ld)
    structured = [p for p in ld if isinstance(p.get("baseSalary"), dict)
                  and isinstance(p["baseSalary"].get("value"), dict)]
    assert any("minValue" in p["baseSalary"]["value"] and p["baseSalary"]["value"]["unitText"] for p in structured)
    free_zh = [p for p in ld if _is_zh(p["title"]) and (isinstance(p.get("baseSalary"), str) or isinstance(
        (p.get("baseSalary") or {}).get("value"), str))]
    assert len(free_zh) >= 10
    assert any(p.get("validThrough") for p in ld)
    addresses = [p["jobLocation"] for p in ld if isinstance(p.get("jobLocation"), dict)]
    assert all({"addressLocality", "addressRegion", "addressCountry"} <= a["address"].keys() for a in addresses)


def test_messy_but_valid_inputs_are_present(postings):
    quirks = Counter(q for r in demo_manifest()["rows"] for q in r["quirks"])
    for quirk in ("salary_floor", "relative_date", "html_entities", "trailing_comma", "shared_page"):
        assert quirks[quirk] >= 1, quirk
    ld = [p["ld"] for p in postings if p["format"] == "jsonld"]
    assert any(p["datePosted"].endswith("天前") for p in ld)
    assert any("&#8211;" in p["title"] for p in ld)
    assert any("&nbsp;" in p["description"] for p in ld)


def test_known_postings_and_demo_query_find_their_targets(postings):
    for known in (KNOWN_POSTING, KNOWN_POSTING_EN):
        match = [p for p in postings if p["source"] == known["source"] and p["external_id"] == known["external_id"]]
        assert len(match) == 1
        board = json.loads((DEMO_DATA_DIR / "greenhouse" / f"{known['source'].removesuffix('-gh')}.json").read_text())
        job = next(j for j in board["jobs"] if str(j["id"]) == known["external_id"])
        assert job["application_deadline"] is None   # never expires, whenever the demo runs
        assert match[0]["title"] == known["title"]
        words = set(tokenize(match[0]["title"] + " " + match[0]["text"]))
        assert set(tokenize(known["query"])) <= words
    query = set(tokenize(DEMO_QUERY))
    hits = [p for p in postings if query <= set(tokenize(p["title"] + " " + p["text"]))]
    assert len(hits) >= 3
    assert any("实习" in p["title"] and "大模型" in p["title"] for p in hits)


def test_resumes_cover_both_languages():
    resumes = demo_resumes()
    assert len(resumes) == 8
    assert Counter(r["lang"] for r in resumes) == {"zh": 4, "en": 4}
    for r in resumes:
        assert r["name"] and len(r["text"]) > 400
        assert _is_zh(r["text"]) == (r["lang"] == "zh")
    assert DEMO_RESUMES.is_dir()


def test_sources_file_names_every_demo_source():
    data = yaml.safe_load(DEMO_SOURCES_FILE.read_text(encoding="utf-8"))
    names = [s["name"] for s in data["sources"]]
    assert len(names) == len(set(names))
    assert set(names) == set(demo_manifest()["sources"])
    for s in data["sources"]:
        assert s["rate_limit"] >= 20
        url = s.get("base_url") or s.get("start_url")
        assert url.startswith("${JOBPIPE_DEMO_URL}")
        if s["kind"] == "jsonld":
            assert s["follow"] in s["start_url"].replace("${JOBPIPE_DEMO_URL}", "") + "jobs/"
        else:
            assert (s.get("board") or s.get("company")) == s["name"].rsplit("-", 1)[0]


def test_data_is_compact():
    size = sum(p.stat().st_size for p in Path(DEMO_DATA_DIR).rglob("*") if p.is_file())
    assert size < 1_500_000


def _sentences(text: str, min_len: int) -> set[str]:
    parts = re.split(r"[。；;.!?\n]\s*", strip_tags(text))
    return {re.sub(r"^[\d\-*•、.)）\s]+", "", s).strip() for s in parts if len(s.strip()) >= min_len}


def test_no_sentence_copied_from_shared_corpus(postings):
    """Our postings are our own writing: none of our sentences is a sentence of the real corpus."""
    corpus_path = shared_data_path("eval", "postings.jsonl")
    corpus: set[str] = set()
    for line in corpus_path.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        corpus |= _sentences(json.loads(line).get("description") or "", 20)
    ours = set().union(*(_sentences(p["text"], 20) for p in postings))
    assert len(ours) > 300 and len(corpus) > 10_000
    assert sorted(ours & corpus) == []

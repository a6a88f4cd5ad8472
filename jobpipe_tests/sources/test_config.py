from __future__ import annotations

import logging
from pathlib import Path

import pytest

from jobpipe.sources import SourcesFileError, load_sources
from jobpipe.sources.options import KIND_OPTIONS

KINDS = ", ".join(KIND_OPTIONS)

ISSUE_EXAMPLE = """
sources:
  - {name: acme-gh, kind: greenhouse, board: acme}
  - {name: acme-lever, kind: lever, company: acme}
  - {name: acme-ashby, kind: ashby, board: acme}
  - {name: acme-site, kind: jsonld, start_url: "https://acme.example/careers/", follow: "/careers/jobs/", max_pages: 500}
  - {name: campus, kind: html, start_url: "https://campus.example/list", item_links: "ul.jobs a", next_page: "a.next",
     fields: {title: "h1", description: ".jd", location: ".city", salary: ".salary"}}
  - {name: import, kind: file, path: "postings.jsonl", format: jsonl, encoding: utf-8,
     fields: {external_id: id, title: title, company: company, location: location, salary: salary_text,
              employment_type: employment_type_text, description: description, url: url, posted_at: posted_at}}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_issue_example_loads_with_defaults_and_relative_path(tmp_path: Path) -> None:
    (tmp_path / "postings.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    configs = load_sources(write(tmp_path, ISSUE_EXAMPLE))
    by_name = {c.name: c for c in configs}
    assert [c.name for c in configs] == ["acme-gh", "acme-lever", "acme-ashby", "acme-site", "campus", "import"]
    assert by_name["acme-gh"].options["base_url"] == "https://boards-api.greenhouse.io"
    assert by_name["acme-lever"].options["page_size"] == 100
    assert by_name["acme-gh"].rate_limit == 1.0 and by_name["acme-gh"].robots and by_name["acme-gh"].enabled
    assert by_name["import"].options["path"] == str((tmp_path / "postings.jsonl").resolve())
    assert by_name["campus"].options["fields"]["description"]["html"] is True
    assert by_name["campus"].options["fields"]["title"]["html"] is False
    assert by_name["acme-site"].options["follow"] == "/careers/jobs/"


def test_env_expansion_with_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOBPIPE_DEMO_URL", "http://127.0.0.1:8765")
    monkeypatch.delenv("JP_UNSET_VAR", raising=False)
    path = write(tmp_path, """
sources:
  - {name: demo-gh, kind: greenhouse, board: demo, base_url: "${JOBPIPE_DEMO_URL}"}
  - {name: demo-site, kind: jsonld, start_url: "${JOBPIPE_DEMO_URL}/careers/", follow: "${JP_UNSET_VAR:-/careers/jobs/}"}
  - {name: rec, kind: recruitee, company: tulip}
""")
    gh, site, rec = load_sources(path)
    assert gh.options["base_url"] == "http://127.0.0.1:8765"
    assert site.options["start_url"] == "http://127.0.0.1:8765/careers/"
    assert site.options["follow"] == "/careers/jobs/"
    assert rec.options["base_url"] == "https://tulip.recruitee.com"


@pytest.mark.parametrize("entry, message", [
    ("{name: a, kind: monster, board: x}", f"source 'a': kind: unknown kind 'monster' (one of: {KINDS})"),
    ("{name: a, kind: greenhouse}", "source 'a': board: missing (required for kind 'greenhouse')"),
    ("{name: a, kind: lever, company: x, board: y}",
     "source 'a': board: unknown option for kind 'lever' (allowed: base_url, company, company_name, enabled, "
     "page_size, rate_limit, robots)"),
    ("{name: a, kind: html, start_url: 'https://x.example/', item_links: 'ul.jobs a', fields: {title: 'h1['}}",
     "source 'a': fields.title: invalid CSS selector 'h1[': Malformed attribute selector at position 2"),
    ("{name: a, kind: html, start_url: 'https://x.example/', item_links: 'ul >> a', fields: {title: h1}}",
     "source 'a': item_links: invalid CSS selector 'ul >> a': The combinator '>' at position 4, must have a selector before it"),
    ("{name: a, kind: file, path: missing.jsonl}",
     "source 'a': path: cannot read '{dir}/missing.jsonl' (No such file or directory)"),
    ("{name: a, kind: jsonld, start_url: 'ftp://x.example/'}", "source 'a': start_url: 'ftp://x.example/' is not an http(s) URL"),
    ("{name: a, kind: jsonld, start_url: 'https://x.example/', max_pages: 0}",
     "source 'a': max_pages: expected a positive whole number, got 0"),
    ("{name: a, kind: greenhouse, board: b, base_url: '${JP_NOT_SET_ANYWHERE}'}",
     "source 'a': base_url: environment variable JP_NOT_SET_ANYWHERE is not set (write ${JP_NOT_SET_ANYWHERE:-default} for a default)"),
    ("{kind: greenhouse, board: b}", "source #1: name: missing (every source needs a unique name)"),
    ("{name: a, kind: jsonld, start_url: 'https://x.example/', follow: '(unclosed'}",
     "source 'a': follow: invalid regular expression '(unclosed': missing ), unterminated subpattern at position 0"),
])
def test_mistakes_name_the_source_and_the_key(tmp_path: Path, entry: str, message: str) -> None:
    path = write(tmp_path, f"sources:\n  - {entry}\n")
    with pytest.raises(SourcesFileError) as info:
        load_sources(path)
    assert str(info.value) == f"{path}: " + message.replace("{dir}", str(tmp_path.resolve()))


def test_duplicate_names_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "sources:\n  - {name: a, kind: greenhouse, board: x}\n  - {name: a, kind: lever, company: y}\n")
    with pytest.raises(SourcesFileError, match=r"source 'a': name: duplicate name \(also used by source #1\)$"):
        load_sources(path)


def test_file_mapping_must_name_external_id_and_known_fields(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("id,title\n1,x\n", encoding="utf-8")
    path = write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.csv, fields: {title: title}}\n")
    with pytest.raises(SourcesFileError, match="source 'f': fields.external_id: missing"):
        load_sources(path)
    path = write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.csv, fields: {external_id: id, salery: pay}}\n")
    with pytest.raises(SourcesFileError, match=r"source 'f': fields.salery: unknown posting field"):
        load_sources(path)
    path = write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.csv, encoding: klingon}\n")
    with pytest.raises(SourcesFileError, match="source 'f': encoding: unknown encoding 'klingon'"):
        load_sources(path)


def test_not_a_sources_file(tmp_path: Path) -> None:
    with pytest.raises(SourcesFileError, match="expected a top-level 'sources:' list"):
        load_sources(write(tmp_path, "- just: a list\n"))
    with pytest.raises(SourcesFileError, match="not valid YAML"):
        load_sources(write(tmp_path, "sources: [\n"))
    with pytest.raises(SourcesFileError, match="cannot read the sources file"):
        load_sources(tmp_path / "nope.yaml")


def test_robots_opt_out_is_logged_as_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = write(tmp_path, "sources:\n  - {name: rude, kind: greenhouse, board: x, robots: false, rate_limit: 5}\n")
    with caplog.at_level(logging.WARNING, logger="jobpipe.sources"):
        (config,) = load_sources(path)
    assert config.robots is False and config.rate_limit == 5.0
    assert any(r.levelno == logging.WARNING and "robots.txt is IGNORED" in r.getMessage() and "'rude'" in r.getMessage()
               for r in caplog.records)

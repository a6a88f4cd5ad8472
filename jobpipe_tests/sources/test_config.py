from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pydantic import ValidationError

from jobpipe.sources import SourcesFileError, load_sources
from jobpipe.sources.kinds import KINDS as KIND_MODULES

KINDS = ", ".join(KIND_MODULES)

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
    columns = ("id", "title", "company", "location", "salary_text", "employment_type_text", "description", "url",
               "posted_at")
    (tmp_path / "postings.jsonl").write_text(json.dumps(dict.fromkeys(columns, "x")) + "\n", encoding="utf-8")
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
     "source 'a': board: unknown option for kind 'lever' (allowed: base_url, close_guard_share, company, "
     "company_name, enabled, freshness_hours, page_size, rate_limit, robots)"),
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


def test_every_mistake_of_the_file_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("id,title\n1,x\n", encoding="utf-8")
    path = write(tmp_path, """
sources:
  - {name: a, kind: greenhouse}
  - {name: b, kind: lever, company: x, page_size: 0, rate_limit: -1, colour: red}
  - {name: c, kind: monster}
  - {kind: ashby, board: x}
  - {name: a, kind: html, start_url: 'ftp://x', item_links: 'ul >> a', fields: {title: 'h1['}}
  - {name: f, kind: file, path: p.csv, fields: {external_id: id, title: titel, company: firm}}
""")
    with pytest.raises(SourcesFileError) as info:
        load_sources(path)
    assert [line.removeprefix(f"{path}: ") for line in info.value.problems] == [
        "source 'a': board: missing (required for kind 'greenhouse')",
        "source 'b': rate_limit: must be a positive number of requests per second",
        "source 'b': page_size: expected a positive whole number, got 0",
        "source 'b': colour: unknown option for kind 'lever' (allowed: base_url, close_guard_share, company, "
        "company_name, enabled, freshness_hours, page_size, rate_limit, robots)",
        f"source 'c': kind: unknown kind 'monster' (one of: {KINDS})",
        "source #4: name: missing (every source needs a unique name)",
        "source 'a': start_url: 'ftp://x' is not an http(s) URL",
        "source 'a': item_links: invalid CSS selector 'ul >> a': The combinator '>' at position 4, must have a "
        "selector before it",
        "source 'a': fields.title: invalid CSS selector 'h1[': Malformed attribute selector at position 2",
        "source 'a': name: duplicate name (also used by source #1)",
        "source 'f': fields.title: column 'titel' is not in p.csv (its columns: id, title)",
        "source 'f': fields.company: column 'firm' is not in p.csv (its columns: id, title)",
    ]
    assert str(info.value) == "\n".join(info.value.problems)


def test_jsonl_mapping_names_keys_no_line_has(tmp_path: Path) -> None:
    lines = [json.dumps({"id": i, "title": "t"}) for i in range(3)] + [json.dumps({"id": 9, "salary_text": "10k"})]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.jsonl, fields: {external_id: id, title: title, "
                           "salary: salary_text, company: company_name}}\n")
    with pytest.raises(SourcesFileError) as info:
        load_sources(path)
    assert info.value.problems == [f"{path}: source 'f': fields.company: column 'company_name' is not in p.jsonl "
                                   "(its columns: id, title, salary_text)"]


def test_a_key_first_seen_after_the_sample_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from jobpipe.sources.kinds import file

    monkeypatch.setattr(file, "KEY_SAMPLE_LINES", 2)
    lines = [json.dumps({"id": i}) for i in range(5)] + [json.dumps({"id": 9, "rare": "x"})]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (config,) = load_sources(write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.jsonl, "
                                             "fields: {external_id: id, department: rare}}\n"))
    assert config.options["fields"] == {"external_id": "id", "department": "rare"}


def test_file_without_an_id_column_needs_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_text("编号,职位\n1,x\n", encoding="utf-8")
    with pytest.raises(SourcesFileError, match=r"source 'f': fields: p.csv has no 'id' or 'external_id' column: "
                                               r"map one as fields.external_id \(its columns: 编号, 职位\)"):
        load_sources(write(tmp_path, "sources:\n  - {name: f, kind: file, path: p.csv}\n"))


def test_sources_file_that_is_not_utf8_or_lists_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sources.yaml"
    path.write_bytes("sources:\n  - {name: 北京, kind: greenhouse, board: x}\n".encode("gbk"))
    with pytest.raises(SourcesFileError) as info:
        load_sources(path)
    assert str(info.value) == f"{path}: not UTF-8 text (byte 0xb1 at offset 20): save the sources file as UTF-8"
    with pytest.raises(SourcesFileError, match=r"'sources' lists no sources \(add at least one\)$"):
        load_sources(write(tmp_path, "sources: []\n"))
    with pytest.raises(SourcesFileError, match=r"'sources' must be a list of sources$"):
        load_sources(write(tmp_path, "sources:\n"))


def test_options_are_typed_attributes(tmp_path: Path) -> None:
    (config,) = load_sources(write(tmp_path, "sources:\n  - {name: l, kind: lever, company: acme, page_size: 50}\n"))
    from jobpipe.sources.kinds import lever

    assert isinstance(config, lever.Config)
    assert (config.company, config.page_size, config.base_url, config.company_name) == ("acme", 50, "https://api.lever.co", None)
    with pytest.raises(ValidationError, match="frozen"):
        config.page_size = 10   # frozen: what was checked is what runs


def test_sources_check_prints_every_mistake(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jobpipe.cli import main

    path = write(tmp_path, "sources:\n  - {name: a, kind: greenhouse}\n  - {name: b, kind: lever}\n")
    assert main(["sources", "check", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["jobpipe: invalid sources file (2 mistakes):",
                   f"  {path}: source 'a': board: missing (required for kind 'greenhouse')",
                   f"  {path}: source 'b': company: missing (required for kind 'lever')"]
    good = write(tmp_path, "sources:\n  - {name: a, kind: greenhouse, board: x, enabled: false}\n")
    assert main(["sources", "check", str(good)]) == 0
    assert capsys.readouterr().out == "a: greenhouse (disabled)\n"

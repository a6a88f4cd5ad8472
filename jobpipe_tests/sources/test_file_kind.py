from __future__ import annotations

import json
from pathlib import Path

import pytest

from jobpipe.sources import SourcesFileError, extract, fetch_source, load_sources
from jobpipe_tests.conftest import shared_data_path
from jobpipe_tests.sources.helpers import make_config

EVAL_FIELDS = {"external_id": "id", "title": "title", "company": "company", "location": "location",
               "salary": "salary_text", "employment_type": "employment_type_text", "description": "description",
               "url": "url", "posted_at": "posted_at"}

GBK_ROWS = "编号,职位,公司,城市,薪资,类型,来源\nc-1,Java开发工程师,华星科技,北京/上海,15-25K·14薪,全职,校园\nc-2,测试实习生,华星科技,深圳,200元/天,实习,\n"


@pytest.mark.parametrize("encoding", ["gbk", "gb18030"])
def test_gbk_csv_with_mapping_and_extra_columns(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "jobs.csv"
    path.write_bytes(GBK_ROWS.encode(encoding))
    config = make_config("cn", "file", tmp_path, path="jobs.csv", encoding=encoding,
                         fields={"external_id": "编号", "title": "职位", "company": "公司", "location": "城市",
                                 "salary": "薪资", "employment_type": "类型"})
    result = fetch_source(config)
    assert result.complete and result.error is None
    first, second = result.postings
    assert first.external_id == "c-1" and first.format == "file"
    assert first.payload == {"external_id": "c-1", "title": "Java开发工程师", "company": "华星科技", "location": "北京/上海",
                             "salary": "15-25K·14薪", "employment_type": "全职", "extra": {"来源": "校园"}}
    fields = extract("file", first.payload)
    assert fields.salary_text == "15-25K·14薪" and fields.location == "北京/上海" and fields.extra == {"来源": "校园"}
    assert second.payload["extra"] == {"来源": None}
    assert result.bytes == path.stat().st_size


def test_wrong_encoding_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "jobs.csv").write_bytes(GBK_ROWS.encode("gbk"))
    with pytest.raises(SourcesFileError, match=r"source 'cn': encoding: jobs.csv is not valid utf-8 text .*set 'encoding'"):
        make_config("cn", "file", tmp_path, path="jobs.csv", fields={"external_id": "编号"})


def test_jsonl_bad_lines_and_missing_ids_are_reported(tmp_path: Path) -> None:
    lines = [json.dumps({"id": "a", "title": "One", "origin": "x"}), "{not json", json.dumps({"title": "no id"}),
             "", json.dumps({"id": 7, "title": "Seven", "location": ["Paris", "Lyon"]})]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = fetch_source(make_config("f", "file", tmp_path, path="p.jsonl"))
    assert [p.external_id for p in result.postings] == ["a", "7"]
    assert not result.complete
    assert result.error.startswith("2 page(s) failed: p.jsonl line 2: not JSON")
    auto = extract("file", result.postings[0].payload)       # no mapping: same-named columns, id -> external_id
    assert auto.title == "One" and auto.extra == {"origin": "x"}
    seven = extract("file", result.postings[1].payload)
    assert seven.location == "Paris" and seven.locations == ["Lyon"]


def test_utf8_bom_is_tolerated(tmp_path: Path) -> None:
    (tmp_path / "p.csv").write_bytes("\ufeffid,title\n1,Ops\n".encode("utf-8"))
    result = fetch_source(make_config("f", "file", tmp_path, path="p.csv"))
    assert [p.payload for p in result.postings] == [{"external_id": "1", "title": "Ops"}]


def test_ingests_the_shared_eval_postings(tmp_path: Path) -> None:
    source = shared_data_path("eval", "postings.jsonl")
    (tmp_path / "sources.yaml").write_text(
        "sources:\n  - name: import\n    kind: file\n    path: " + json.dumps(str(source)) +
        "\n    format: jsonl\n    encoding: utf-8\n    fields: " + json.dumps(EVAL_FIELDS) + "\n", encoding="utf-8")
    (config,) = load_sources(tmp_path / "sources.yaml")
    result = fetch_source(config)
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").split("\n") if line.strip()]
    assert result.complete and len(result.postings) == len(rows) == 4825
    assert {p.external_id for p in result.postings} == {r["id"] for r in rows}
    sample = rows[123]
    posting = next(p for p in result.postings if p.external_id == sample["id"])
    fields = extract("file", posting.payload)
    assert fields.title == sample["title"] and fields.salary_text == sample["salary_text"]
    assert fields.extra == {"origin": sample["origin"]}

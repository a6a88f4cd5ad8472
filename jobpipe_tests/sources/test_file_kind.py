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
    with pytest.raises(SourcesFileError, match=r"source 'cn': encoding: jobs.csv: the header line is not valid utf-8 text .*set 'encoding'"):
        make_config("cn", "file", tmp_path, path="jobs.csv", fields={"external_id": "编号"})


def test_jsonl_bad_lines_are_quarantined_and_the_rest_loads(tmp_path: Path) -> None:
    lines = [json.dumps({"id": "a", "title": "One", "origin": "x"}), "{not json", json.dumps({"title": "no id"}),
             "", "[1, 2]", json.dumps({"id": 7, "title": "Seven", "location": ["Paris", "Lyon"]})]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = fetch_source(make_config("f", "file", tmp_path, path="p.jsonl"))
    assert [p.external_id for p in result.postings] == ["a", "7"]
    assert result.complete and result.error is None          # the listing was read to the end
    assert [(q.position, q.reason.split(" (")[0], q.raw) for q in result.quarantined] == [
        ("p.jsonl line 2", "not JSON", "{not json"),
        ("p.jsonl line 3", "no value in the external_id column 'id'", '{"title": "no id"}'),
        ("p.jsonl line 5", "expected a JSON object, got list", "[1, 2]"),
    ]
    auto = extract("file", result.postings[0].payload)       # no mapping: same-named columns, id -> external_id
    assert auto.title == "One" and auto.extra == {"origin": "x"}
    seven = extract("file", result.postings[1].payload)
    assert seven.location == "Paris" and seven.locations == ["Lyon"]


def test_an_undecodable_line_is_quarantined_with_its_bytes(tmp_path: Path) -> None:
    good = [json.dumps({"id": i, "title": f"职位{i}"}, ensure_ascii=False).encode() for i in range(5)]
    broken = '{"id": 99, "title": "数'.encode() + "据".encode()[:2] + b'"}'   # a cut character
    (tmp_path / "p.jsonl").write_bytes(b"\n".join(good[:2] + [broken] + good[2:]) + b"\n")
    result = fetch_source(make_config("f", "file", tmp_path, path="p.jsonl"))
    assert result.complete and [p.external_id for p in result.postings] == ["0", "1", "2", "3", "4"]
    (q,) = result.quarantined
    assert q.position == "p.jsonl line 3" and q.reason.startswith("not valid utf-8 text (")
    assert q.raw == '{"id": 99, "title": "数\\xe6\\x8d"}'      # the bytes are kept, escaped


def test_a_file_in_another_encoding_is_one_error(tmp_path: Path) -> None:
    rows = "".join(json.dumps({"id": i, "title": f"数据工程师{i}"}, ensure_ascii=False) + "\n" for i in range(4))
    text = '{"id": "en", "title": "Ops"}\n' + rows
    (tmp_path / "p.jsonl").write_bytes(text.encode("gbk"))
    with pytest.raises(SourcesFileError, match=r"encoding: p.jsonl: not valid utf-8 text \(4 of 4 lines"):
        make_config("f", "file", tmp_path, path="p.jsonl", fields={"external_id": "id"})
    (tmp_path / "p.jsonl").write_bytes(text.encode("utf-8"))
    config = make_config("f", "file", tmp_path, path="p.jsonl", fields={"external_id": "id"})
    (tmp_path / "p.jsonl").write_bytes(text.encode("gbk"))      # tonight's drop came in another encoding
    result = fetch_source(config)
    assert not result.complete
    assert result.error.endswith("not valid utf-8 text (4 of 4 lines with non-ASCII bytes do not decode, first line 2); "
                                 "set 'encoding' in the sources file")


def test_csv_rows_without_id_shifted_or_undecodable_are_quarantined(tmp_path: Path) -> None:
    text = ("编号,职位,城市\n"
            "c-1,Java开发,北京\n"
            ",测试,深圳\n"
            "c-3,\"多行\n描述\",上海\n"
            "c-4,运维,杭州,额外,更多\n"
            "c-5,前端,广州,\n").encode("gb18030")
    text = text.replace("广州".encode("gb18030"), "广州".encode("gb18030")[:3])   # a cut character on line 7
    (tmp_path / "jobs.csv").write_bytes(text)
    config = make_config("cn", "file", tmp_path, path="jobs.csv", encoding="gb18030",
                         fields={"external_id": "编号", "title": "职位", "location": "城市"})
    result = fetch_source(config)
    assert result.complete
    assert [(p.external_id, p.payload["title"]) for p in result.postings] == [("c-1", "Java开发"), ("c-3", "多行\n描述")]
    assert [(q.position, q.reason.split(" (")[0]) for q in result.quarantined] == [
        ("jobs.csv line 3", "no value in the external_id column '编号'"),
        ("jobs.csv line 6", "5 values for 3 columns"),
        ("jobs.csv line 7", "not valid gb18030 text"),
    ]
    assert result.quarantined[1].raw == "c-4,运维,杭州,额外,更多"


def test_a_mapped_column_missing_from_a_new_file_fails_the_fetch(tmp_path: Path) -> None:
    (tmp_path / "jobs.csv").write_text("id,title\n1,x\n", encoding="utf-8")
    config = make_config("f", "file", tmp_path, path="jobs.csv", fields={"external_id": "id", "title": "title"})
    (tmp_path / "jobs.csv").write_text("id,name\n1,x\n", encoding="utf-8")     # tonight's drop renamed a column
    result = fetch_source(config)
    assert not result.complete and result.postings == []
    assert result.error == "fields.title: column 'title' is not in jobs.csv (its columns: id, name)"


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

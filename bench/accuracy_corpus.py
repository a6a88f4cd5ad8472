"""The postings the accuracy labels refer to, read from ../shared/data the way jobpipe reads them.

Every origin goes through the path a user's configuration would take, so the labels measure the
product and not a benchmark's private clean-up:

- ``eval/postings.jsonl`` (origins rebase, bili, zhilian, google, gd): a ``file`` source with the
  field mapping docs/sources.md shows, through the file kind's extractor;
- raw corpora as ``file`` sources with a column mapping: 51job (GB18030 CSV, Python-list cells),
  拉勾 as stored (UTF-8 of Latin-1 of GBK: every cell is mojibake), the uncleaned Glassdoor CSV,
  the Tencent careers and 拉勾 mobile API items (JSON arrays of flat objects);
- ``api_samples/<kind>``: each posting of a list payload through that kind's extractor; the
  schema.org JSON-LD pages in ``html/jsonld`` through the ``jsonld`` extractor.

Ids are stable: the eval id, ``<origin>:<row or posting id>`` for the others. Nothing here is
copied into the repository; the labels (bench/labels/) hold ids and expected values only.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jobpipe.models import PostingFields
from jobpipe.sources import extract

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
csv.field_size_limit(10**8)


@dataclass(frozen=True)
class Posting:
    id: str
    origin: str
    fields: PostingFields


#: The eval corpus as a file source (docs/sources.md's example mapping).
EVAL_MAPPING = {"title": "title", "company": "company", "location": "location", "salary": "salary_text",
                "employment_type": "employment_type_text", "description": "description", "url": "url",
                "posted_at": "posted_at"}

#: Raw corpora: (origin, path under data/, format, encoding, id column or None for the row number, mapping).
RAW_FILES: list[tuple[str, str, str, str, str | None, dict[str, str]]] = [
    ("51job", "corpus_zh/51job_bigdata_jobs_2019_GBK__SpiderOf51job.csv", "csv", "gb18030", None,
     {"title": "职位", "salary": "薪资", "company": "公司", "location": "地区", "experience_text": "工作经验",
      "degree_text": "学历", "description": "岗位信息", "posted_at": "时间"}),
    ("lagou", "corpus_zh/lagou_DataAnalyst_2017__MOJIBAKE_utf8-of-latin1-of-gbk__jobAnalyst.csv", "csv", "utf-8",
     "positionId",
     {"title": "positionName", "company": "companyFullName", "location": "city", "salary": "salary",
      "experience_text": "workYear", "degree_text": "education", "description": "positionAdvantage"}),
    ("glassdoor", "corpus_en/glassdoor_uncleaned_DS_jobs__GlassDoor_Data_Science_Job_Posting.csv", "csv", "utf-8",
     "index",
     {"title": "Job Title", "salary": "Salary Estimate", "company": "Company Name", "location": "Location",
      "description": "Job Description"}),
    ("tencent", "api_samples/zh_tencent/spider_items_with_require_2022__scrapy_tencent_jobs.json", "json", "utf-8",
     "postid", {"title": "name", "location": "city", "description": "require", "url": "link", "posted_at": "date"}),
    ("lagou_api", "api_samples/zh_lagou/mobile_positions_search_result_2018__wx-Chat.json", "json", "utf-8",
     "positionId", {"title": "positionName", "company": "companyFullName", "location": "city", "salary": "salary",
                    "posted_at": "createTime"}),
]

#: api_samples kinds whose payload files hold a list of postings, and the key of that list.
API_LISTS = {"greenhouse": "jobs", "lever": None, "ashby": "jobs", "workable": "jobs", "recruitee": "offers",
             "smartrecruiters": "content", "teamtailor": "items", "workday": "jobPostings", "comeet": None,
             "eightfold": "positions"}


def available() -> bool:
    return (DATA / "eval" / "postings.jsonl").exists()


def _file_fields(row: dict[str, Any], mapping: dict[str, str]) -> PostingFields:
    """What the file kind stores for a row (mapped fields, the rest under extra) and extracts from it."""
    payload: dict[str, Any] = {target: row.get(column) for target, column in mapping.items()}
    extra = {k: v for k, v in row.items() if k not in set(mapping.values())}
    if extra:
        payload["extra"] = extra
    return extract("file", payload)


def eval_postings() -> Iterator[Posting]:
    with open(DATA / "eval" / "postings.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                yield Posting(r["id"], r["origin"], _file_fields(r, EVAL_MAPPING))


def _raw_rows(path: Path, fmt: str, encoding: str) -> Iterator[tuple[int, dict[str, Any]]]:
    if fmt == "csv":
        with open(path, encoding="utf-8-sig" if encoding == "utf-8" else encoding, newline="") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=2):
                yield number, {k: (v if v != "" else None) for k, v in row.items() if k is not None}
        return
    for number, row in enumerate(json.loads(path.read_text(encoding=encoding)), start=1):
        yield number, row


def raw_postings() -> Iterator[Posting]:
    for origin, rel, fmt, encoding, id_column, mapping in RAW_FILES:
        path = DATA / rel
        if not path.exists():
            continue
        for number, row in _raw_rows(path, fmt, encoding):
            ident = str(row.get(id_column)) if id_column else str(number)
            if origin == "tencent":   # the item splits its text in two; a kind would join them
                row = {**row, "require": "\n".join(x for x in (row.get("resp"), row.get("require")) if x)}
            yield Posting(f"{origin}:{ident}", origin, _file_fields(row, mapping))


def api_postings() -> Iterator[Posting]:
    for kind, key in API_LISTS.items():
        for path in sorted((DATA / "api_samples" / kind).glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            items = data if key is None else (data.get(key) if isinstance(data, dict) else None)
            if not isinstance(items, list):
                continue
            stem = path.stem.split("__")[1] if "__" in path.stem else path.stem
            for i, item in enumerate(items):
                ident = item.get("id") or item.get("uuid") or item.get("shortcode") or item.get("externalPath") or i
                ident = str(ident).rsplit("/", 1)[-1].rsplit("_", 1)[-1]   # Workday: ".../Title_JR354232"
                yield Posting(f"{kind}:{stem}:{ident}", "api", extract(kind, item))
    from jobpipe.sources.ldjson import find_job_postings, json_ld_blocks

    for path in sorted((DATA / "html" / "jsonld").glob("*.html")):
        blocks, _ = json_ld_blocks(path.read_text(encoding="utf-8", errors="replace"))
        for i, posting in enumerate(find_job_postings(blocks)):
            yield Posting(f"jsonld:{path.stem.split('__')[0]}:{i}", "api", extract("jsonld", posting))


def all_postings() -> dict[str, Posting]:
    """Every posting of every origin, by id."""
    out: dict[str, Posting] = {}
    for source in (eval_postings(), raw_postings(), api_postings()):
        for p in source:
            out.setdefault(p.id, p)
    return out

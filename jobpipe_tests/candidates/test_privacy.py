"""Personal data never leaves the resume: planted in every format, searched for everywhere.

Resumes of every format (and ones added through the CLI and the API) carry a name, e-mail
addresses, phone numbers, links, handles and street addresses. After the Dagster run the
folder sensor starts, none of them may appear in any column of any table (the stored resume
text included: only its redacted form is kept), in the log records, in the printed output, or
in the run's events, config and tags. Deleting a candidate removes every row of it.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest
from dagster import DagsterInstance, build_sensor_context
from fastapi.testclient import TestClient

from jobpipe.embedding import TokenHashEmbedder
from jobpipe_tests.candidates.files import make_docx, make_pdf
from jobpipe_tests.service.support import embed_jobs, insert_jobs

pytestmark = pytest.mark.slow   # the whole candidate graph through Dagster, every door in and out

NAME_EN, NAME_ZH = "Zephyrine Quillfeather", "龚雪梅"
SECRETS = [
    NAME_EN, "Quillfeather", NAME_ZH, "zq.private@example.org", "gxm.mail@example.cn", "+1 (415) 555-0123",
    "139-0000-5678", "13912345678", "linkedin.com/in/zquill-9", "github.com/zquillgh", "@zquillf", "zq_wechat_77",
    "gxm_2024", "742 Evergreen Terrace", "漕溪北路595号", "zquill.dev", "88886666",
    "Widowed", "鄂温克",   # marital status and ethnicity: who the person is, never a criterion
    "Vantreight",
]
#: Phone numbers again as bare digits (a number re-spaced or re-punctuated is still that number).
PHONE_DIGITS = ["14155550123", "4155550123", "13900005678", "13912345678", "88886666"]


def _resume_en(fmt: str) -> list[str]:
    return [
        NAME_EN,
        f"Senior Backend Engineer | Berlin, Germany | zq.private@example.org | +1 (415) 555-0123 ({fmt})",
        "LinkedIn: https://www.linkedin.com/in/zquill-9   GitHub: github.com/zquillgh   Twitter @zquillf",
        "Address: 742 Evergreen Terrace, Springfield   WeChat: zq_wechat_77   Site: zquill.dev",
        "Marital Status: Widowed",
        "SUMMARY",
        f"{NAME_EN} is a backend engineer with 8 years of experience. Quillfeather likes Python.",
        "EXPERIENCE",
        "2018 - present  Senior Backend Engineer, a payments company",
        "- Built services in Python, Go and PostgreSQL on Kubernetes. Call 139-0000-5678 for references.",
        "SKILLS",
        "Python, Go, PostgreSQL, Kubernetes, Docker",
        "REFERENCES",
        "Hollis Vantreight, Director of Engineering, a bank",   # a referee: a person too
    ]


RESUME_ZH = "\n".join([
    NAME_ZH,
    "求职意向：Java 后端开发工程师 | 期望城市：上海",
    "手机：13912345678  邮箱：gxm.mail@example.cn  微信：gxm_2024  QQ：88886666",
    "住址：上海市徐汇区漕溪北路595号",
    "民族：鄂温克族  性别：女",
    "工作经历",
    "2019.07 - 至今  某互联网公司  后端开发工程师",
    f"负责支付系统，使用 Java、Spring、MySQL 与 Redis。{NAME_ZH}带领团队完成迁移。",
    "专业技能",
    "Java、Spring、MySQL、Redis、Kafka",
])


@pytest.fixture
def drop_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "p-txt.txt").write_text("\n".join(_resume_en("txt")), encoding="utf-8")
    (folder / "p-md.md").write_text("# " + "\n\n".join(_resume_en("md")), encoding="utf-8")
    (folder / "p-json.json").write_text(json.dumps({"name": NAME_EN, "text": "\n".join(_resume_en("json")[1:]),
                                                    "preferences": {"remote": True}}), encoding="utf-8")
    (folder / "p-pdf.pdf").write_bytes(make_pdf(_resume_en("pdf"), author=NAME_EN))
    lines = _resume_en("docx")
    (folder / "p-docx.docx").write_bytes(make_docx(
        lines[4:], header=lines[:2], table=[["Phone", "139-0000-5678"], ["Email", "zq.private@example.org"]],
        textbox=lines[2], author=NAME_EN))
    (folder / "p-zh.txt").write_text(RESUME_ZH, encoding="utf-8")
    # A Chinese template's personal-information table: the name is only in a cell beside its label.
    (folder / "p-zh-table.docx").write_bytes(make_docx(
        RESUME_ZH.splitlines()[4:], table=[["姓名", NAME_ZH, "性别", "女"], ["手机", "13912345678", "QQ", "88886666"]]))
    return folder


def _search_database(conn) -> list[str]:
    """Every value of every column of every table, as text, searched for every secret."""
    found = []
    columns = conn.execute(
        "SELECT c.table_name, c.column_name, c.udt_name FROM information_schema.columns c "
        "JOIN pg_tables t ON t.tablename = c.table_name AND t.schemaname = c.table_schema "
        "WHERE c.table_schema = 'public' ORDER BY 1, 2").fetchall()
    assert {("candidates", "resume_text"), ("candidate_matches", "missing_skills")} <= {(t, c) for t, c, _ in columns}
    for table, column, udt in columns:
        for (value,) in conn.execute(f'SELECT "{column}"::text FROM "{table}" WHERE "{column}" IS NOT NULL'):
            leaks = [s for s in SECRETS if s.lower() in value.lower()]
            if udt != "vector":   # a vector's digits are no phone number
                leaks += [d for d in PHONE_DIGITS if d in re.sub(r"[\s().+\-]", "", value)]
            found += [f"{table}.{column}: {leak!r}" for leak in leaks]
    return found


def _leaks(text: str) -> list[str]:
    flat = re.sub(r"[\s().+\-]", "", text)
    return [s for s in SECRETS if s.lower() in text.lower()] + [d for d in PHONE_DIGITS if d in flat]


def test_no_personal_data_in_tables_logs_or_dagster_events(database, db, drop_folder, tmp_path, monkeypatch,
                                                           caplog, capsys):
    from jobpipe.orchestration.definitions import build_definitions, candidates_folder
    from jobpipe.orchestration.resources import build_resources
    from jobpipe.service.api import create_app
    from jobpipe.service.settings import ServiceSettings

    monkeypatch.setenv("JOBPIPE_CANDIDATES", str(drop_folder))
    monkeypatch.setenv("JOBPIPE_EMBEDDER", "local")
    monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "token-hash-64")
    embedder = TokenHashEmbedder(64)
    insert_jobs(db)
    embed_jobs(db, embedder)
    caplog.set_level(logging.DEBUG)

    # the CLI and the API add two more, with the same personal details
    from jobpipe.cli import main

    cli_file = tmp_path / "cli-cv.docx"
    cli_file.write_bytes(make_docx(_resume_en("cli"), author=NAME_EN))
    assert main(["candidates", "add", str(cli_file), "--id", "p-cli"]) == 0
    app = create_app(ServiceSettings(), database_url=database, embedder=embedder)
    with TestClient(app) as client:
        assert client.post("/candidates", json={"id": "p-api", "name": NAME_EN,
                                                "text": "\n".join(_resume_en("api"))}).status_code == 201
        assert client.post("/candidates", files={"file": ("cv.pdf", make_pdf(_resume_en("upload"), author=NAME_EN))},
                           data={"id": "p-upload"}).status_code == 201

    # the folder sensor sees the new files and asks for a run; the run does the rest
    instance = DagsterInstance.ephemeral()
    resources = build_resources()   # the environment now: this drop folder
    defs = build_definitions(resources)
    request = candidates_folder(build_sensor_context(instance=instance, cursor=None, resources=resources))
    assert request.run_key and not request.run_config
    result = defs.resolve_job_def("candidates_job").execute_in_process(
        instance=instance, run_config=request.run_config or {}, tags=request.tags)
    assert result.success
    profiles = next(e for e in result.get_asset_materialization_events()
                    if e.asset_key.path[-1] == "candidate_profiles").step_materialization_data.materialization
    assert profiles.metadata["profiled"].value == 7 and profiles.metadata["quarantined"].value == 0
    assert db.execute("SELECT count(*) FROM candidate_matches").fetchone()[0] > 0
    assert db.execute("SELECT count(*) FROM candidates").fetchone()[0] == 10

    # nowhere in the database
    assert _search_database(db) == []

    # not in the run's events, config or tags, not in log records or printed output
    from dagster._serdes import serialize_value

    run = instance.get_run_by_id(result.run_id)
    events = "\n".join(serialize_value(e) for e in instance.all_logs(result.run_id))
    assert "candidate_profiles" in events                      # the events really are there
    assert _leaks(events) == []
    assert _leaks(json.dumps(run.run_config) + json.dumps(run.tags)) == []
    logged = "\n".join(f"{r.name} {r.getMessage()} {r.args!r}" for r in caplog.records)
    assert _leaks(logged) == []
    out = capsys.readouterr()
    assert _leaks(out.out + out.err) == []
    # and the ids Dagster saw: counts only in metadata
    assert "p-txt" not in events and str(drop_folder) not in events

    # the profile still says what matters
    profile = db.execute("SELECT profile FROM candidates WHERE candidate_id = 'p-docx'").fetchone()[0]
    assert {"Python", "Go", "PostgreSQL", "Kubernetes"} <= set(profile["skills"]) and profile["cities"] == ["Berlin"]
    zh = db.execute("SELECT profile FROM candidates WHERE candidate_id = 'p-zh'").fetchone()[0]
    assert zh["cities"][0] == "Shanghai" and "Java" in zh["skills"]


def _rows_of(db, cid: str) -> dict[str, int]:
    return {t: db.execute(f"SELECT count(*) FROM {t} WHERE candidate_id = %s", (cid,)).fetchone()[0]
            for t in ("candidates", "candidate_embeddings", "candidate_matches", "candidate_match_state")}


def test_delete_through_every_door_leaves_nothing(database, db, drop_folder, tmp_path, monkeypatch):
    from jobpipe.candidates import refresh_matches
    from jobpipe.cli import main
    from jobpipe.pipeline.candidates import embed_candidates
    from jobpipe.pipeline.candidates import profile_candidates as sync_candidates
    from jobpipe.service.api import create_app
    from jobpipe.service.settings import ServiceSettings

    monkeypatch.setenv("JOBPIPE_CANDIDATES", str(drop_folder))
    monkeypatch.setenv("JOBPIPE_EMBEDDER", "local")
    monkeypatch.setenv("JOBPIPE_EMBEDDING_MODEL", "token-hash-64")
    embedder = TokenHashEmbedder(64)
    insert_jobs(db)
    embed_jobs(db, embedder)
    (drop_folder / "p-broken.pdf").write_bytes(b"%PDF-1.4 broken")
    sync_candidates(db, drop_folder)
    embed_candidates(db, embedder)
    refresh_matches(db)
    for cid in ("p-txt", "p-md", "p-zh"):
        assert all(_rows_of(db, cid).values()), _rows_of(db, cid)
    # the file leaving the folder
    (drop_folder / "p-txt.txt").unlink()
    (drop_folder / "p-broken.pdf").unlink()
    sync_candidates(db, drop_folder)
    assert _rows_of(db, "p-txt") == dict.fromkeys(_rows_of(db, "p-txt"), 0)
    assert db.execute("SELECT count(*) FROM candidate_quarantine").fetchone()[0] == 0
    # the CLI: rows and the drop-folder file
    assert main(["candidates", "delete", "p-md"]) == 0
    assert _rows_of(db, "p-md") == dict.fromkeys(_rows_of(db, "p-md"), 0) and not (drop_folder / "p-md.md").exists()
    # the API
    with TestClient(create_app(ServiceSettings(), database_url=database, embedder=embedder)) as client:
        assert client.delete("/candidates/p-zh").status_code == 204
    assert _rows_of(db, "p-zh") == dict.fromkeys(_rows_of(db, "p-zh"), 0) and not (drop_folder / "p-zh.txt").exists()
    sync_candidates(db, drop_folder)          # and nothing comes back
    assert {r[0] for r in db.execute("SELECT candidate_id FROM candidates")} == {"p-json", "p-pdf", "p-docx", "p-zh-table"}

"""POST/GET/DELETE /candidates and GET /candidates/{id}/matches against a real database."""

from __future__ import annotations

import json

import psycopg
import pytest
from fastapi.testclient import TestClient

from jobpipe.db import connect
from jobpipe_tests.candidates.files import encrypt_pdf, make_docx, make_pdf
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND


def test_post_text_then_read_profile_and_matches(client: TestClient, seeded):
    response = client.post("/candidates", json={"id": "api-ml", "name": "Alex Morgan", "text": EN_ML,
                                                "preferences": {"cities": ["旧金山"], "remote": True}})
    assert response.status_code == 201, response.text
    assert response.json() == {"candidate_id": "api-ml", "outcome": "inserted", "embedded": True,
                               "matches": response.json()["matches"]}
    assert response.json()["matches"] > 0
    detail = client.get("/candidates/api-ml").json()
    assert detail["origin"] == "api" and detail["preferences"] == {"cities": ["旧金山"], "remote": True}
    assert detail["effective_preferences"]["cities"] == ["San Francisco"]
    assert detail["effective_preferences"]["source"]["cities"] == "explicit"
    assert "Machine Learning Engineer" in detail["embedding_text"]
    for secret in ("Alex Morgan", "alex.morgan@example.com", "555-0199"):
        assert secret not in json.dumps(detail, ensure_ascii=False)
    body = client.get("/candidates/api-ml/matches", params={"top_k": 3}).json()
    assert body["candidate_id"] == "api-ml" and body["note"] is None and len(body["results"]) <= 3
    top = body["results"][0]
    assert top["job_id"] == seeded["go-sf"] and top["rank"] == 1 and set(top["parts"]) == {
        "semantic", "skills", "experience", "location", "job_type", "salary"}
    assert top["score"] == top["fused_score"] and 0 <= top["score"] <= 100
    cities = {tuple(r["cities"]) for r in body["results"]}
    assert cities == {("San Francisco",), ()}        # the hard preference: San Francisco, or remote


def test_post_the_same_id_again_replaces_or_leaves_it(client: TestClient, seeded):
    assert client.post("/candidates", json={"id": "api-fe", "text": EN_FRONTEND}).status_code == 201
    again = client.post("/candidates", json={"id": "api-fe", "text": EN_FRONTEND})
    assert again.status_code == 200 and again.json()["outcome"] == "unchanged"
    edited = client.post("/candidates", json={"id": "api-fe", "text": EN_FRONTEND + "\nAlso Go."})
    assert edited.status_code == 200 and edited.json()["outcome"] == "updated"
    new = client.post("/candidates", json={"text": ZH_BACKEND})
    assert new.status_code == 201 and new.json()["candidate_id"].startswith("c-")


@pytest.mark.parametrize(("name", "data"), [
    ("cv.docx", make_docx(EN_FRONTEND.splitlines(), header=["Sam Lee | sam@example.com"])),
    ("cv.pdf", make_pdf(EN_ML.splitlines(), author="Alex Morgan")),
    ("cv.md", ("# " + EN_ML).encode()),
])
def test_multipart_upload_of_each_format(client: TestClient, seeded, name, data):
    cid = "upload-" + name.replace(".", "-")
    response = client.post("/candidates", files={"file": (name, data)},
                           data={"id": cid, "preferences": json.dumps({"job_types": ["full_time"]})})
    assert response.status_code == 201, response.text
    detail = client.get(f"/candidates/{cid}").json()
    assert detail["preferences"] == {"job_types": ["full_time"]} and detail["profile"]["skills"]
    assert "sam@example.com" not in detail["embedding_text"] and "Alex Morgan" not in json.dumps(detail)


@pytest.mark.parametrize(("kwargs", "status", "message"), [
    ({"json": {"text": "x", "citty": 1}}, 422, "citty: unknown field"),
    ({"json": {"text": ""}}, 422, "text: String should have at least 1 character"),
    ({"json": {"text": "python dev", "preferences": {"currency": "XYZ", "salary_min": 5}}}, 422,
     "currency: unknown currency 'XYZ'"),
    ({"json": {"text": "python dev", "preferences": {"remote": "sometimes"}}}, 422, "remote: Input should be"),
    ({"content": b"not json", "headers": {"content-type": "application/json"}}, 422, "Invalid JSON"),
    ({"content": b"text", "headers": {"content-type": "text/plain"}}, 415, None),
    ({"files": {"file": ("cv.pdf", encrypt_pdf(make_pdf(["Python developer"])))}}, 422, "encrypted PDF"),
    ({"files": {"file": ("cv.doc", b"\xd0\xcf\x11\xe0")}}, 422, "file: unsupported format .doc"),
    ({"files": {"file": ("cv.txt", b"python")}, "data": {"preferences": "{bad"}}, 422, "preferences: not valid JSON"),
    ({"files": {"other": ("cv.txt", b"python")}}, 422, "unknown form field(s) ['other']"),
])
def test_bad_candidate_requests_say_what_is_wrong(client: TestClient, seeded, kwargs, status, message):
    response = client.post("/candidates", **kwargs)
    assert response.status_code == status, response.text
    if message:
        assert message in response.json()["message"]


def test_delete_removes_everything_and_unknown_ids_are_404(client: TestClient, database, seeded):
    client.post("/candidates", json={"id": "to-delete", "text": EN_ML})
    with connect(database) as conn:
        counts = [conn.execute(f"SELECT count(*) FROM {t} WHERE candidate_id = 'to-delete'").fetchone()[0]
                  for t in ("candidates", "candidate_embeddings", "candidate_matches", "candidate_match_state")]
    assert all(counts), counts
    assert client.delete("/candidates/to-delete").status_code == 204
    with connect(database) as conn:
        assert [conn.execute(f"SELECT count(*) FROM {t} WHERE candidate_id = 'to-delete'").fetchone()[0]
                for t in ("candidates", "candidate_embeddings", "candidate_matches", "candidate_match_state")] == [0] * 4
    assert client.get("/candidates/to-delete").status_code == 404
    assert client.get("/candidates/to-delete/matches").status_code == 404
    assert client.delete("/candidates/to-delete").status_code == 404


def test_ids_with_slashes_and_folder_candidates(client: TestClient, database, seeded):
    from jobpipe.candidates import CandidateRecord, parse_resume, upsert_candidate

    with connect(database) as conn:
        upsert_candidate(conn, CandidateRecord(parse_resume("team/bo", EN_FRONTEND), origin="folder",
                                               source_file="team/bo.txt"))
        conn.commit()
    assert client.get("/candidates/team/bo").json()["source_file"] == "team/bo.txt"
    assert client.get("/candidates/team/bo/matches").json()["note"].startswith("no matches computed yet")
    conflict = client.post("/candidates", json={"id": "team/bo", "text": EN_ML})
    assert conflict.status_code == 409 and "drop folder file team/bo.txt" in conflict.json()["detail"]


def test_candidate_writes_go_through_a_login_that_writes_candidate_tables_only(client: TestClient, database, seeded):
    """POST/DELETE /candidates write as <database>_candidates: no superuser, no memberships, owning
    nothing; it reads what the service reads and may write the candidate tables, nothing else."""
    from psycopg import sql

    from jobpipe.db.connection import database_name
    from jobpipe.db.roles import CANDIDATE_WRITES, unsafe_reasons, writer_role_name

    ctx = client.app.state.context
    name = writer_role_name(database_name(database))
    with psycopg.connect(database) as owner:
        assert unsafe_reasons(owner, name) == []
        owner_name = owner.execute("SELECT current_user").fetchone()[0]
    with ctx.write_connection() as conn:
        assert conn.execute("SELECT session_user").fetchone()[0] == name
        conn.execute("SELECT count(*) FROM jobs").fetchone()
        for statement in ("UPDATE jobs SET title = 'x'", "DELETE FROM job_embeddings", "TRUNCATE candidates",
                          "INSERT INTO embedding_models (model, dims) VALUES ('x', 1)", "DELETE FROM job_skill_tiers",
                          "UPDATE match_calibration SET pairs = 0", "DELETE FROM candidate_match_jobs",
                          "SELECT count(*) FROM raw_postings", "CREATE TABLE scratch (x int)",
                          sql.SQL("SET ROLE {}").format(sql.Identifier(owner_name))):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
            conn.rollback()
        for table in CANDIDATE_WRITES:
            conn.execute(sql.SQL("DELETE FROM {} WHERE false").format(sql.Identifier(table)))
        conn.rollback()


def test_without_a_writer_login_candidate_writes_answer_503_naming_the_step(database, seeded, service_database,
                                                                           monkeypatch):
    from jobpipe.service.api import create_app
    from jobpipe.service.settings import ServiceSettings
    from jobpipe_tests.service.support import HashEmbedder

    # pointed at its reader only (no owner URL to set a writer up from): reads work, writes say what to do
    app = create_app(ServiceSettings(database_url=service_database), embedder=HashEmbedder())
    with TestClient(app) as client:
        response = client.post("/candidates", json={"id": "nowhere", "text": EN_ML})
        assert response.status_code == 503
        assert "jobpipe db service-role --candidate-writer" in response.json()["message"]
        assert "JOBPIPE_SERVICE_WRITER_DATABASE_URL" in response.json()["message"]
        assert client.get("/candidates/nowhere").status_code == 404
    # a writer URL that logs in as the owner is refused, not used
    app = create_app(ServiceSettings(database_url=service_database, writer_database_url=database),
                     embedder=HashEmbedder())
    with TestClient(app) as client:
        response = client.delete("/candidates/nowhere")
        assert response.status_code == 503 and "superuser" in response.json()["message"]


def test_read_endpoints_stay_read_only(client: TestClient, database, seeded):
    """GET /candidates/... runs on the read-only pool: it cannot write even if asked to."""
    ctx = client.app.state.context
    with ctx.connection() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        conn.execute("DELETE FROM candidates")

"""The drop folder and the candidates table stay in step: new, edited, renamed, removed, unreadable files."""

import json
import os
from pathlib import Path

import pytest

from jobpipe.candidates import DropFolderError, parse_resume, sync_folder, upsert_candidates
from jobpipe.candidates.documents import PREFERENCES_SUFFIX
from jobpipe_tests.candidates.files import encrypt_pdf, make_docx, make_pdf
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND


def _write(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _rows(db) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in db.execute(
        "SELECT candidate_id, origin, source_file, content_hash, match_hash, xmin::text FROM candidates")}


def _quarantine(db) -> dict[str, str]:
    return dict(db.execute("SELECT source_file, reason FROM candidate_quarantine").fetchall())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    f = tmp_path / "drop"
    _write(f, "zh-backend.txt", ZH_BACKEND)
    _write(f, "ml.md", "# " + EN_ML)
    _write(f, "fe.json", json.dumps({"name": "Sam Lee", "text": EN_FRONTEND, "preferences": {"remote": True}}))
    _write(f, "team/pdf-cv.pdf", make_pdf(EN_ML.splitlines(), author="Alex Morgan"))
    _write(f, "word-cv.docx", make_docx(EN_FRONTEND.splitlines()[1:], header=["Sam Lee | sam@example.com"]))
    _write(f, ".DS_Store", b"\x00\x01")
    _write(f, "~$word-cv.docx", b"lock")
    return f


def test_first_sync_reads_every_format_and_quarantines_with_reasons(db, folder):
    _write(folder, "locked.pdf", encrypt_pdf(make_pdf(["Python developer"])))
    _write(folder, "scan.pdf", make_pdf([], text_layer=False))
    _write(folder, "old.doc", b"\xd0\xcf\x11\xe0")
    _write(folder, "photo.png", b"\x89PNG")
    _write(folder, "empty.txt", "")
    result = sync_folder(db, folder)
    assert (result.profiled, result.deleted, result.quarantined, result.candidates) == (5, 0, 5, 5)
    rows = _rows(db)
    assert sorted(rows) == ["fe", "ml", "team/pdf-cv", "word-cv", "zh-backend"]
    assert {r[0] for r in rows.values()} == {"folder"} and rows["team/pdf-cv"][1] == "team/pdf-cv.pdf"
    q = _quarantine(db)
    assert q["locked.pdf"].startswith("encrypted PDF") and q["scan.pdf"].startswith("PDF without a text layer")
    assert q["old.doc"].startswith("legacy Word .doc") and q["photo.png"].startswith("unsupported format .png")
    assert q["empty.txt"] == "empty file"
    prefs = db.execute("SELECT preferences FROM candidates WHERE candidate_id = 'fe'").fetchone()[0]
    assert prefs == {"remote": True}


def test_an_unchanged_folder_reads_no_file_and_writes_nothing(db, folder, monkeypatch):
    sync_folder(db, folder)
    before = _rows(db)
    reads = []
    original = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: reads.append(self.name) or original(self))
    again = sync_folder(db, folder)
    assert (again.profiled, again.unchanged, again.deleted) == (0, 5, 0) and reads == []
    assert _rows(db) == before
    # touched but identical: read and hashed once, still nothing rewritten
    os.utime(folder / "ml.md", ns=(1, 1))
    assert sync_folder(db, folder).profiled == 0 and reads == ["ml.md"]
    assert _rows(db)["ml"][:4] == before["ml"][:4]
    assert sync_folder(db, folder).unchanged == 5 and reads == ["ml.md"]   # the new stat is remembered


def test_editing_one_file_rewrites_exactly_that_candidate(db, folder):
    sync_folder(db, folder)
    before = _rows(db)
    _write(folder, "ml.md", "# " + EN_ML + "\nAlso shipped services in Go and Kafka.\n")
    assert sync_folder(db, folder).profiled == 1
    after = _rows(db)
    changed = [cid for cid in after if after[cid] != before[cid]]
    assert changed == ["ml"] and after["ml"][2] != before["ml"][2]   # new embedding text: a new content hash


def test_a_preference_only_change_keeps_the_embedding_text(db, folder):
    sync_folder(db, folder)
    before = _rows(db)["zh-backend"]
    _write(folder, "zh-backend" + PREFERENCES_SUFFIX, json.dumps({"cities": ["北京"], "salary_min": 400000,
                                                                  "currency": "CNY"}))
    assert sync_folder(db, folder).profiled == 1
    after = _rows(db)["zh-backend"]
    assert after[2] == before[2] and after[3] != before[3]       # same content hash, new match hash
    assert db.execute("SELECT preferences FROM candidates WHERE candidate_id = 'zh-backend'").fetchone()[0] == {
        "cities": ["北京"], "salary_min": 400000.0, "currency": "CNY"}


def test_bad_preferences_quarantine_the_file_with_the_field_named(db, folder):
    _write(folder, "zh-backend" + PREFERENCES_SUFFIX, json.dumps({"citys": ["北京"]}))
    _write(folder, "orphan" + PREFERENCES_SUFFIX, "{}")
    _write(folder, "fe.json", json.dumps({"text": EN_FRONTEND, "preferences": {"currency": "XXX", "salary_min": 1}}))
    sync_folder(db, folder)
    q = _quarantine(db)
    assert q["zh-backend.txt"].startswith("preferences: citys: unknown field")
    assert q["fe.json"].startswith("preferences: currency: unknown currency 'XXX'")
    assert q["orphan.preferences.json"] == "preferences file without a resume of the same name"
    assert "zh-backend" not in _rows(db)


def test_removed_file_deletes_the_candidate_and_everything_of_it(db, folder):
    sync_folder(db, folder)
    db.execute("INSERT INTO embedding_models (model, dims, state) VALUES ('m', 2, 'active')")
    db.execute("INSERT INTO candidate_embeddings (candidate_id, model, dims, content_hash, embedding) "
               "SELECT candidate_id, 'm', 2, content_hash, '[1,0]' FROM candidates")
    db.execute("INSERT INTO candidate_match_state (candidate_id, model, match_hash) SELECT candidate_id, 'm', '' "
               "FROM candidates")
    db.commit()
    (folder / "team" / "pdf-cv.pdf").unlink()
    result = sync_folder(db, folder)
    assert result.deleted == 1 and "team/pdf-cv" not in _rows(db)
    for table in ("candidate_embeddings", "candidate_match_state"):
        assert db.execute(f"SELECT count(*) FROM {table} WHERE candidate_id = 'team/pdf-cv'").fetchone()[0] == 0


def test_a_fixed_or_removed_bad_file_leaves_the_quarantine(db, folder):
    _write(folder, "later.txt", "")
    sync_folder(db, folder)
    assert "later.txt" in _quarantine(db)
    _write(folder, "later.txt", "Backend engineer with Python")
    assert sync_folder(db, folder).profiled == 1 and "later.txt" not in _quarantine(db)
    _write(folder, "gone.pdf", b"%PDF-broken")
    sync_folder(db, folder)
    (folder / "gone.pdf").unlink()
    sync_folder(db, folder)
    assert _quarantine(db) == {}


def test_renamed_file_keeps_its_candidate_and_a_taken_id_is_quarantined(db, folder):
    sync_folder(db, folder)
    (folder / "ml.md").rename(folder / "ml.txt")
    result = sync_folder(db, folder)
    assert result.deleted == 0 and _rows(db)["ml"][1] == "ml.txt"
    _write(folder, "ml.pdf", make_pdf(["Data engineer, Spark"]))
    sync_folder(db, folder)
    assert _quarantine(db)["ml.txt"] == "its id 'ml' is already taken by ml.pdf"


def test_an_api_candidate_id_is_not_taken_over_by_a_file(db, folder):
    upsert_candidates(db, [parse_resume("fe", EN_FRONTEND)])   # origin api
    sync_folder(db, folder)
    assert _quarantine(db)["fe.json"] == "its id 'fe' belongs to a candidate added through the api; rename the file"
    (folder / "fe.json").unlink()
    sync_folder(db, folder)
    assert _rows(db)["fe"][0] == "api"        # a file leaving the folder never deletes an API candidate


def test_a_missing_folder_deletes_nothing(db, folder, tmp_path):
    sync_folder(db, folder)
    with pytest.raises(DropFolderError, match="missing or not a folder; its 5 candidates are kept"):
        sync_folder(db, tmp_path / "unmounted")
    assert len(_rows(db)) == 5
    db.execute("DELETE FROM candidates")
    db.commit()
    assert sync_folder(db, tmp_path / "nothing-yet").candidates == 0     # no folder and no candidates: fine


@pytest.mark.parametrize("offset", [-1, 1])   # a digest, not a counter: any other version is another parser
def test_cli_and_api_candidates_of_another_parser_are_profiled_again_from_their_redacted_text(db, folder, offset):
    """They have no file to read again: a parser or embedding-text change reaches them through
    their stored (redacted) resume text, through the same profile stage as the folder."""
    from jobpipe.candidates import CandidatePreferences, CandidateRecord, upsert_candidate
    from jobpipe.candidates.parse import parser_version
    from jobpipe.candidates.store import embedding_text, load_candidate
    from jobpipe.pipeline.candidates import profile_candidates

    text = "Maya Okafor\nmaya.okafor@example.org\n" + EN_ML
    upsert_candidate(db, CandidateRecord(parse_resume("api-1", text, ("Maya Okafor",)),
                                         CandidatePreferences.parse({"cities": ["Berlin"]}), origin="api"))
    db.execute("UPDATE candidates SET parser_version = %s, embedding_text = 'an older text', content_hash = 'old' "
               "WHERE candidate_id = 'api-1'", (parser_version() + offset,))
    db.commit()
    outcome = profile_candidates(db, folder)
    assert outcome.profiled == outcome.candidates + 1          # the folder's files and the API candidate
    again = load_candidate(db, "api-1")
    assert again.parser_version == parser_version() and again.origin == "api"
    assert again.embedding_text == embedding_text(again.profile) != "an older text"
    assert list(again.preferences.cities) == ["Berlin"]
    assert "Okafor" not in again.embedding_text and "example.org" not in again.embedding_text
    assert profile_candidates(db, folder).profiled == 0

import json

import pytest

from jobpipe.candidates import ResumeLoadError, load_resumes, parse_resume, upsert_candidates
from jobpipe_tests.candidates.resumes import EN_ML, ZH_BACKEND


def test_load_folder_of_text_and_markdown(tmp_path):
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "li.txt").write_text(ZH_BACKEND, encoding="utf-8")
    (tmp_path / "alex.md").write_text(EN_ML, encoding="utf-8")
    (tmp_path / "empty.txt").write_text("  \n", encoding="utf-8")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    docs = load_resumes(tmp_path)
    assert [(d.candidate_id, d.name) for d in docs] == [("alex", None), ("zh/li", None)]
    assert docs[1].text == ZH_BACKEND


def test_load_jsonl(tmp_path):
    path = tmp_path / "resumes.jsonl"
    path.write_text("\n".join([json.dumps({"id": "c1", "name": "李明", "text": ZH_BACKEND}, ensure_ascii=False),
                               "", json.dumps({"id": 2, "text": EN_ML})]), encoding="utf-8")
    docs = load_resumes(path)
    assert [(d.candidate_id, d.name) for d in docs] == [("c1", "李明"), ("2", None)]


@pytest.mark.parametrize(("content", "message"), [
    ('{"id": "a", "text": "x"}\n{broken', "resumes.jsonl:2: not valid JSON"),
    ('{"text": "x"}', "resumes.jsonl:1: expected an object with 'id' and 'text'"),
    ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}', "duplicate candidate ids ['a']"),
])
def test_bad_jsonl_is_reported_with_its_line(tmp_path, content, message):
    path = tmp_path / "resumes.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ResumeLoadError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_resumes(path)


def test_missing_path_means_no_candidates(tmp_path):
    assert load_resumes(tmp_path / "nope") == []
    with pytest.raises(ResumeLoadError):
        (tmp_path / "x.csv").write_text("a,b")
        load_resumes(tmp_path / "x.csv")


def test_upsert_inserts_then_leaves_unchanged_profiles_alone(db):
    profiles = [parse_resume("zh-1", ZH_BACKEND, name="李明"), parse_resume("en-1", EN_ML)]
    first = upsert_candidates(db, profiles)
    assert (first.inserted, first.updated, first.unchanged) == (2, 0, 0)
    before = dict(db.execute("SELECT candidate_id, xmin::text FROM candidates").fetchall())

    again = upsert_candidates(db, [parse_resume("zh-1", ZH_BACKEND, name="李明"), parse_resume("en-1", EN_ML)])
    assert (again.inserted, again.updated, again.unchanged) == (0, 0, 2)
    assert dict(db.execute("SELECT candidate_id, xmin::text FROM candidates").fetchall()) == before  # not rewritten

    changed = upsert_candidates(db, [parse_resume("en-1", EN_ML + "\nAlso Go and Kafka.")])
    assert (changed.inserted, changed.updated, changed.unchanged) == (0, 1, 0)
    row = db.execute("SELECT skills, headline, cities, language FROM candidates WHERE candidate_id = 'en-1'").fetchone()
    assert "Kafka" in row[0] and row[1] == "Machine Learning Engineer" and row[2] == ["San Francisco"]
    assert row[3] == "en"

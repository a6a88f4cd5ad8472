"""Matching against real jobs, vectors and HNSW indexes: scores, hard preferences, duplicates, incremental refresh."""

from __future__ import annotations

import pytest

from jobpipe.candidates import (
    WEIGHTS,
    MatchError,
    UnknownCandidateError,
    match,
    read_matches,
    refresh_matches,
)
from jobpipe.candidates.matching import calibrate
from jobpipe.candidates.scoring import PARTS
from jobpipe.normalize import canonical_skill
from jobpipe.search.types import SearchFilters
from jobpipe.store import sync_candidate_embeddings
from jobpipe.store.models import active_model
from jobpipe_tests.candidates import world
from jobpipe_tests.candidates.resumes import EN_FRONTEND, EN_ML, ZH_BACKEND
from jobpipe_tests.service.support import HashEmbedder, embed_jobs, insert_jobs


@pytest.fixture
def fixture_jobs(db):
    ids = insert_jobs(db)
    embed_jobs(db, HashEmbedder())
    return ids


def test_resume_text_ranks_the_fitting_job_first_with_its_parts(db, fixture_jobs):
    results = match(db, resume_text=EN_ML, top_k=3, embedder=HashEmbedder())
    assert len(results) == 3
    top = results[0]
    assert top.job_id == fixture_jobs["ml-ny"]
    assert set(top.matched_skills) == {canonical_skill("python"), canonical_skill("pytorch"), canonical_skill("kubernetes")}
    assert top.missing_skills == [] and top.parts["skills"] == 80.0   # all 3 held: (3 + 1) / (3 + 2)
    assert top.score == pytest.approx(sum(WEIGHTS[p] * top.parts[p] for p in PARTS), abs=1e-4)
    assert all(0 <= v <= 100 for r in results for v in r.parts.values()) and 0 <= top.score <= 100
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    go = next(r for r in match(db, resume_text=EN_ML, top_k=10, embedder=HashEmbedder()) if r.job_id == fixture_jobs["go-sf"])
    assert canonical_skill("go") in go.missing_skills and canonical_skill("kubernetes") in go.matched_skills


def test_closed_jobs_are_never_matched(db, fixture_jobs):
    ids = {r.job_id for r in match(db, resume_text="数据分析 SQL Python Tableau", top_k=20, embedder=HashEmbedder())}
    assert fixture_jobs["da-sz"] not in ids and len(ids) == len(fixture_jobs) - 1


def test_request_filters_apply(db, fixture_jobs):
    results = match(db, resume_text=ZH_BACKEND, filters=SearchFilters(city="北京"), top_k=10, embedder=HashEmbedder())
    assert {r.job_id for r in results} == {fixture_jobs["py-bj"], fixture_jobs["evil"]}
    interns = match(db, resume_text=ZH_BACKEND, filters=SearchFilters(job_type="intern"), embedder=HashEmbedder())
    assert [r.job_id for r in interns] == [fixture_jobs["llm-sh"]]


def test_stored_candidate_uses_its_stored_vector(db, fixture_jobs):
    world.add_candidate(db, "fe", EN_FRONTEND)
    results = match(db, candidate_id="fe", top_k=1, embedder=None)      # no embedder: the stored vector
    assert results[0].job_id == fixture_jobs["fe-remote"] and results[0].parts["location"] == 100.0


def test_errors_say_what_is_wrong(db, fixture_jobs):
    with pytest.raises(UnknownCandidateError, match="unknown candidate_id 'ghost'"):
        match(db, candidate_id="ghost", embedder=HashEmbedder())
    with pytest.raises(ValueError, match="exactly one"):
        match(db, candidate_id="a", resume_text="b", embedder=HashEmbedder())
    other = HashEmbedder()
    other.model = "another-model"
    with pytest.raises(MatchError, match="active model 'test-hash-64'"):
        match(db, resume_text=EN_ML, embedder=other)
    with pytest.raises(MatchError, match="an embedder is needed"):
        match(db, resume_text=EN_ML, embedder=None)


def test_no_active_model(db):
    insert_jobs(db)
    with pytest.raises(MatchError, match="no active embedding model"):
        match(db, resume_text=EN_ML, embedder=HashEmbedder())
    assert refresh_matches(db).recomputed == 0


# ---------------------------------------------------------------- materialized lists
@pytest.fixture
def market(db):
    postings = world.random_postings(120)
    postings += [
        world.posting("py-1", "Senior Backend Engineer", skills=["Python", "PostgreSQL", "Docker", "Redis"], cities=["Berlin"],
                      seniority="senior", salary_year=150000, description="Backend services in Python. Redis is a plus."),
        # the same job cross-posted: one entry per duplicate group
        world.posting("py-1-copy", "Senior Backend Engineer", skills=["Python", "PostgreSQL", "Docker", "Redis"],
                      cities=["Berlin"], seniority="senior", salary_year=150000, source="mirror",
                      description="Backend services in Python. Redis is a plus."),
        world.posting("py-remote", "Backend Engineer (Python)", skills=["Python", "Redis"], cities=[], remote="remote"),
        world.posting("py-cheap", "Backend Engineer", skills=["Python", "PostgreSQL"], cities=["Berlin"],
                      salary_year=30000, company="Globex"),
    ]
    ids = world.load(db, postings)
    for cid, text in world.RESUMES.items():
        world.add_candidate(db, cid, text)
    return {"postings": postings, "ids": ids}


def test_full_build_writes_explained_lists_one_per_duplicate_group(db, market):
    result = refresh_matches(db, top_n=10, reserve=5)
    assert (result.recomputed, result.full, result.partial, result.waiting) == (4, 4, 0, 0)
    rows = db.execute("SELECT candidate_id, count(*) FROM candidate_matches GROUP BY 1 ORDER BY 1").fetchall()
    assert rows == [(cid, 15) for cid in sorted(world.RESUMES)]
    dups = db.execute("SELECT candidate_id, dedupe_key, count(*) FROM candidate_matches WHERE dedupe_key IS NOT NULL "
                      "GROUP BY 1, 2 HAVING count(*) > 1").fetchall()
    assert dups == []
    shown = read_matches(db, "py", top_k=100, top_n=10)
    assert len(shown.results) == 10                               # the reserve is never shown
    best = shown.results[0]
    assert best.external_id in ("py-1", "py-1-copy") and best.rank == 1
    assert best.score == pytest.approx(sum(WEIGHTS[p] * best.parts[p] for p in PARTS), abs=0.01)
    assert canonical_skill("redis") in best.matched_nice and best.missing_skills == []
    assert [r.score for r in shown.results] == sorted((r.score for r in shown.results), reverse=True)
    assert {r[0] for r in db.execute("SELECT DISTINCT model FROM candidate_matches")} == {HashEmbedder().model}


def test_hard_preferences_remove_only_known_conflicts(db, market):
    world.add_candidate(db, "picky", world.RESUMES["py"], {
        "cities": ["柏林"], "remote": True, "salary_min": 100000, "currency": "USD", "exclude_companies": ["Umbrella"],
        "job_types": ["full_time"]})
    refresh_matches(db, top_n=50, reserve=10)
    rows = db.execute(
        "SELECT j.cities, j.remote, j.job_type, j.salary_annual_max, j.company FROM candidate_matches m "
        "JOIN jobs j USING (job_id) WHERE m.candidate_id = 'picky'").fetchall()
    assert rows
    for cities, remote, job_type, salary, company in rows:
        assert "Berlin" in cities or remote == "remote" or (not cities and remote != "remote")
        assert job_type in (None, "full_time")
        assert salary is None or salary >= 100000
        assert company != "Umbrella"
    ext = {r[0] for r in db.execute("SELECT j.external_id FROM candidate_matches m JOIN jobs j USING (job_id) "
                                     "WHERE m.candidate_id = 'picky'")}
    assert "py-remote" in ext and "py-cheap" not in ext


def test_a_selective_preference_does_not_starve_the_list(db, market):
    rare = [world.posting(f"oslo-{i}", "Backend Engineer", skills=["Python"], cities=["Oslo"], company=f"Nordic {i}")
            for i in range(3)]
    world.load(db, market["postings"] + rare)
    world.add_candidate(db, "oslo", world.RESUMES["ml"], {"cities": ["Oslo"]})   # 3 of 127 jobs, far from the resume
    result = refresh_matches(db, top_n=10, reserve=0)
    got = {r.external_id for r in read_matches(db, "oslo", top_k=10, top_n=10).results}
    assert {"oslo-0", "oslo-1", "oslo-2"} <= got
    assert result.plans.get("exact", 0) >= 1


def test_nothing_changed_recomputes_nothing(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    before = db.execute("SELECT candidate_id, job_id, xmin::text FROM candidate_matches ORDER BY 1, 2").fetchall()
    again = refresh_matches(db, top_n=10, reserve=5)
    assert (again.recomputed, again.jobs_touched, again.jobs_gone, again.rows_written) == (0, 0, 0, 0)
    assert db.execute("SELECT candidate_id, job_id, xmin::text FROM candidate_matches ORDER BY 1, 2").fetchall() == before


def test_a_closed_job_leaves_every_list_in_the_same_run(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    top = read_matches(db, "py", top_k=1, top_n=10).results[0]
    holders = {r[0] for r in db.execute("SELECT candidate_id FROM candidate_matches WHERE job_id = %s", (top.job_id,))}
    world.close(db, top.external_id)
    result = refresh_matches(db, top_n=10, reserve=5)
    assert result.jobs_gone == 1 and result.full == 0
    assert db.execute("SELECT count(*) FROM candidate_matches WHERE job_id = %s", (top.job_id,)).fetchone()[0] == 0
    # the snapshot forgets the closed job (and only it), so the next run does not see it leave again
    assert world.snapshot_matches_open_jobs(db)
    assert db.execute("SELECT count(*) FROM candidate_match_jobs WHERE job_id = %s", (top.job_id,)).fetchone()[0] == 0
    assert refresh_matches(db, top_n=10, reserve=5).jobs_gone == 0
    # its cross-posted copy now leads the group for the candidates that had it
    copy = "py-1-copy" if top.external_id == "py-1" else "py-1"
    assert read_matches(db, "py", top_k=1, top_n=10).results[0].external_id == copy
    assert holders


def test_refresh_touches_only_what_changed(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    before = {cid: world.visible(db, cid, 10) for cid in world.RESUMES}
    postings = market["postings"] + [world.posting("go-new", "Senior Go Backend Engineer",
                                                   skills=["Go", "Kubernetes", "Java"], cities=["Berlin"],
                                                   description="后端开发工程师. Go, Java, Kubernetes.")]
    world.load(db, postings)
    result = refresh_matches(db, top_n=10, reserve=5)
    assert result.full == 0 and result.jobs_touched == 1
    assert "go-new" in [e for e, _ in world.visible(db, "zh", 10)]
    assert world.visible(db, "fe", 10) == before["fe"]


def test_editing_a_candidate_recomputes_exactly_that_one(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    world.add_candidate(db, "fe", world.RESUMES["fe"] + "\nAlso Go and Kubernetes.")
    result = refresh_matches(db, top_n=10, reserve=5)
    assert (result.full, result.partial) == (1, 0)


def test_a_preference_only_change_embeds_nothing_but_recomputes_the_list(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    world.add_candidate(db, "py", world.RESUMES["py"], {"remote": True})
    assert sync_candidate_embeddings(db, HashEmbedder()).embedded == 0
    result = refresh_matches(db, top_n=10, reserve=5)
    assert result.full == 1
    remotes = db.execute("SELECT count(*) FROM candidate_matches m JOIN jobs j USING (job_id) "
                         "WHERE m.candidate_id = 'py' AND j.remote IS DISTINCT FROM 'remote' AND j.cities <> '{}'"
                         ).fetchone()[0]
    assert remotes == 0        # remote alone: only remote (or unlocated) jobs


def test_a_new_scorer_recomputes_every_list_once(db, market, monkeypatch):
    from jobpipe.candidates import matching

    refresh_matches(db, top_n=10, reserve=5)
    assert refresh_matches(db, top_n=10, reserve=5).full == 0
    # an upgrade whose scoring code differs: the stored lists were ranked by the old scorer
    monkeypatch.setattr(matching, "scorer_version", lambda: "another-scorer")
    assert refresh_matches(db, top_n=10, reserve=5).full == len(world.RESUMES)
    assert refresh_matches(db, top_n=10, reserve=5).full == 0


def test_the_scorer_version_reads_the_scoring_code_not_its_comments(tmp_path, monkeypatch):
    from jobpipe import codeversion
    from jobpipe.candidates.matching import scorer_version

    assert len(scorer_version()) == 12
    (tmp_path / "m.py").write_text('def f(x):\n    """Why."""\n    return x + 1\n')
    monkeypatch.setattr(codeversion, "PACKAGE", tmp_path)
    before = codeversion.code_digest("s", ["m.py"])
    (tmp_path / "m.py").write_text('def f(x):\n    """Why, said better."""\n    # a comment\n    return (x +\n            1)\n')
    assert codeversion.code_digest("s", ["m.py"]) == before
    (tmp_path / "m.py").write_text('def f(x):\n    """Why."""\n    return x + 2\n')
    assert codeversion.code_digest("s", ["m.py"]) != before


def test_a_model_switch_recomputes_every_list_with_the_new_model_only(db, market):
    refresh_matches(db, top_n=10, reserve=5)
    new = HashEmbedder()
    new.model, new.dims = "test-hash-32", 32
    from jobpipe.store import ensure_vector_index, sync_job_embeddings

    counts = sync_job_embeddings(db, new)
    assert counts.activated
    ensure_vector_index(db, new.model, new.dims)
    # candidates without a vector of the new model wait; their old-model lists are not shown
    waiting = refresh_matches(db, top_n=10, reserve=5)
    assert waiting.waiting == 4 and db.execute("SELECT count(*) FROM candidate_matches").fetchone()[0] == 0
    assert read_matches(db, "py").results == []
    assert sync_candidate_embeddings(db, new).embedded == 4
    result = refresh_matches(db, top_n=10, reserve=5)
    assert result.full == 4
    assert {r[0] for r in db.execute("SELECT DISTINCT model FROM candidate_matches")} == {"test-hash-32"}


@pytest.mark.slow
def test_incremental_lists_equal_a_full_rebuild(db):
    """After closed, changed, new and reopened jobs and an edited candidate, the refreshed lists are
    exactly what a full rebuild computes."""
    postings = world.random_postings(200, seed=3)
    world.load(db, postings)
    for cid, text in world.RESUMES.items():
        world.add_candidate(db, cid, text)
    world.add_candidate(db, "picky", world.RESUMES["ml"], {"cities": ["Shanghai", "London"], "remote": True})
    refresh_matches(db)
    changed = postings
    for i in range(0, 40, 4):
        changed = world.change(changed, f"r-{i}", skills=["Python", "Go"], title="Backend Engineer (Python, Go)")
    changed += world.random_postings(15, seed=11, start=500)
    world.load(db, changed)
    world.close(db, *[f"r-{i}" for i in range(1, 60, 3)])
    world.add_candidate(db, "fe", world.RESUMES["fe"] + "\nPython too.")
    result = refresh_matches(db)
    assert result.partial > 0 and result.full >= 1 and result.jobs_gone == 20
    assert world.snapshot_matches_open_jobs(db)
    incremental = {cid: world.visible(db, cid) for cid in [*world.RESUMES, "picky"]}
    refresh_matches(db, full=True)
    rebuilt = {cid: world.visible(db, cid) for cid in [*world.RESUMES, "picky"]}
    assert incremental == rebuilt


@pytest.mark.slow
def test_incremental_lists_equal_a_full_rebuild_when_the_pool_is_a_fraction_of_the_jobs(db):
    postings = world.random_postings(600, seed=5)
    world.load(db, postings)
    for cid, text in world.RESUMES.items():
        world.add_candidate(db, cid, text)
    refresh_matches(db, top_n=5, reserve=5)          # pool 100 of 600 jobs: the similarity floor matters
    changed = postings
    for i in range(0, 120, 6):
        changed = world.change(changed, f"r-{i}", skills=["Python", "PostgreSQL"], title="Senior Backend Engineer")
    changed += world.random_postings(30, seed=12, start=900)
    world.load(db, changed)
    world.close(db, *[f"r-{i}" for i in range(1, 200, 5)])
    result = refresh_matches(db, top_n=5, reserve=5)
    assert result.partial > 0 and result.jobs_gone == 40
    assert world.snapshot_matches_open_jobs(db)
    incremental = {cid: world.visible(db, cid, 5) for cid in world.RESUMES}
    refresh_matches(db, top_n=5, reserve=5, full=True)
    rebuilt = {cid: world.visible(db, cid, 5) for cid in world.RESUMES}
    assert incremental == rebuilt


def test_a_new_copy_of_a_listed_job_rescores_its_group_without_duplicating_an_entry(db):
    """A job new tonight joins the duplicate group of a job already in a list: the group's jobs are
    scored again, and the listed one's entry is replaced, never written twice."""
    postings = [world.posting(f"g-{i}", "Backend Engineer", skills=["Python", "PostgreSQL"], company=f"Co {i}")
                for i in range(6)]
    world.load(db, postings)
    world.add_candidate(db, "py", world.RESUMES["py"])
    refresh_matches(db, top_n=3, reserve=1)
    listed = world.visible(db, "py", 3)
    copy = world.posting("g-0-copy", "Backend Engineer", skills=["Java"], company="Co 0", source="mirror")
    world.load(db, postings + [copy])
    # the listed job still leads its group; its stored entry scores a little lower than tonight's
    # rescoring of it does (as float rounding can): the new entry must replace it
    db.execute("UPDATE candidate_matches SET score = score - 0.5")
    db.commit()
    result = refresh_matches(db, top_n=3, reserve=1)
    assert result.partial == 1
    rows = db.execute("SELECT job_id, count(*) FROM candidate_matches WHERE candidate_id = 'py' "
                      "GROUP BY job_id HAVING count(*) > 1").fetchall()
    assert rows == []
    incremental = world.visible(db, "py", 3)
    refresh_matches(db, top_n=3, reserve=1, full=True)
    assert len(incremental) == len(listed) == 3
    assert {e for e, _ in incremental} <= {e for e, _ in world.visible(db, "py", 3)} | {e for e, _ in listed}


def test_skill_weights_are_frozen_with_the_model_and_measured_again_only_with_a_rebuild(db, market):
    """A night's new jobs do not move the weights (partial lists stay on the full build's scale);
    a calibration without weights (older installs) gets them and every list is rebuilt with them."""
    first = refresh_matches(db, top_n=10, reserve=5)
    assert first.full == 4
    stored = db.execute("SELECT skill_weights FROM match_calibration").fetchone()[0]
    common, rare = world.SKILLS[0], "Rust"
    assert stored["weights"][common] < stored["unseen"] and rare not in stored["weights"]
    more = [world.posting(f"rust-{i}", "Systems Engineer", skills=[rare, common]) for i in range(40)]
    world.load(db, market["postings"] + more)
    night = refresh_matches(db, top_n=10, reserve=5)
    assert night.full == 0 and night.jobs_touched >= 40
    assert db.execute("SELECT skill_weights FROM match_calibration").fetchone()[0] == stored
    db.execute("UPDATE match_calibration SET skill_weights = NULL")
    db.commit()
    again = refresh_matches(db, top_n=10, reserve=5)
    assert again.full == 4 and again.partial == 0
    remeasured = db.execute("SELECT skill_weights FROM match_calibration").fetchone()[0]
    assert rare in remeasured["weights"] and remeasured != stored


def test_the_scales_depend_on_the_postings_not_on_the_order_they_arrived_in(db):
    """Two databases holding the same postings score alike: the calibration sample is drawn by the
    postings' identity, not by job ids (assigned in arrival order, which parallel runs vary)."""
    postings = world.random_postings(450)
    scales = []
    for order in (postings, postings[::-1]):
        db.execute("TRUNCATE jobs RESTART IDENTITY CASCADE")
        db.commit()
        ids = world.load(db, order)
        scales.append((ids[postings[0].external_id], calibrate(db, active_model(db), store=False)))
    (first_id, first), (second_id, second) = scales
    assert first_id != second_id                       # the same posting got another id
    assert (first.floor, first.ceiling) == (second.floor, second.ceiling)


#: (source, external_id) pairs that tell the forms apart if anything differs: non-ASCII (CJK,
#: accents composed and not, astral emoji, Latin-1), empty parts, the separator and its
#: neighbours inside a part, case, and prefixes of one another.
_TRICKY_IDS = [
    ("greenhouse", "123"), ("greenhouse", "1234"), ("greenhouse", "12"), ("Greenhouse", "123"),
    ("智联", "岗位-1"), ("智联", "岗位-10"), ("bili", "é"), ("bili", "e\u0301"), ("bili", "😀"), ("bili", "\uffff"),
    ("bili", "ÿ"), ("", "x"), ("x", ""), ("", ""), ("a\x1fb", "c"), ("a", "b\x1fc"), ("a", "\x1e"), ("a", "\x20"),
    ("a b", "c"), ("a", "B"), ("a", "b"), ("Z", "a"),
]


def test_posting_identity_is_one_string_in_python_and_sql_and_sorts_alike(db):
    """The SQL declaration of the tie-break identity gives Python's string for every id, and the
    database orders identities as Python does (equal scores rank alike in both)."""
    from jobpipe.candidates.matching import posting_identity, posting_identity_sql

    # columns in a linguistic collation, as an operator's server may default to (en_US.UTF-8 ...):
    # the identity still sorts by code point, as Python's strings do
    db.execute('CREATE TEMP TABLE j (n int, source text COLLATE "unicode", external_id text COLLATE "unicode")')
    with db.cursor().copy("COPY j (n, source, external_id) FROM STDIN") as copy:
        for n, (source, external_id) in enumerate(_TRICKY_IDS):
            copy.write_row((n, source, external_id))
    rows = db.execute(f"SELECT n, {posting_identity_sql('j')} FROM j ORDER BY n").fetchall()
    assert [identity for _, identity in rows] == [posting_identity(s, e) for s, e in _TRICKY_IDS]
    in_sql = [n for (n,) in db.execute(f"SELECT n FROM j ORDER BY {posting_identity_sql('j')}, n")]
    assert in_sql == sorted(range(len(_TRICKY_IDS)), key=lambda n: (posting_identity(*_TRICKY_IDS[n]), n))
    # the sample of calibration (md5 of the identity) is that of the Python string's UTF-8 bytes
    import hashlib
    md5 = dict(db.execute(f"SELECT n, md5({posting_identity_sql('j')}) FROM j").fetchall())
    assert md5 == {n: hashlib.md5(posting_identity(s, e).encode()).hexdigest() for n, (s, e) in enumerate(_TRICKY_IDS)}
    with pytest.raises(ValueError):
        posting_identity_sql("j; DROP TABLE jobs")


def test_a_listed_tool_holds_the_skill_family_a_job_asks_for(db):
    """A resume naming PyTorch holds a job's "Deep Learning" (jobpipe/search/data/skill_families.yaml)."""
    from jobpipe_tests.service.support import JOBS

    job = {**JOBS[1], "external_id": "dl", "skills": ["deep learning", "python"],
           "description_text": "训练与评测深度模型。"}
    ids = insert_jobs(db, [job])
    embed_jobs(db, HashEmbedder())
    (result,) = match(db, resume_text="Research engineer. Skills: PyTorch, Python.", top_k=1, embedder=HashEmbedder())
    assert result.job_id == ids["dl"]
    assert set(result.matched_skills) == {canonical_skill("deep learning"), canonical_skill("python")}
    assert result.missing_skills == []

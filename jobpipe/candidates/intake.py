"""Adding and deleting one candidate now (the CLI and the HTTP API share these).

An added candidate is redacted, profiled, stored, embedded with the active model (when the
embedder is that model) and matched at once, so its list can be read right after the call;
the nightly pipeline keeps it up to date from then on. A candidate of the drop folder is
managed by its file: it cannot be replaced through the API or the CLI, and deleting it
deletes the file too (or it would come back at the next run).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from jobpipe.candidates.documents import PREFERENCES_SUFFIX
from jobpipe.candidates.folder import MAX_CANDIDATE_ID_CHARS, read_candidate
from jobpipe.candidates.matching import DEFAULT_RESERVE, DEFAULT_TOP_N, match_candidate_now
from jobpipe.candidates.store import (
    CandidateConflict,
    CandidateError,
    UnknownCandidateError,
    delete_candidates,
    upsert_candidate,
)
from jobpipe.config import DEMO_RESUMES_DIR
from jobpipe.store import active_model


@dataclass
class Added:
    candidate_id: str
    outcome: str          # inserted | updated | unchanged
    embedded: bool        # a vector of the active model is there
    matches: int          # rows of its list written now (0: the pipeline computes them)

    def as_json(self) -> dict[str, Any]:
        return {"candidate_id": self.candidate_id, "outcome": self.outcome, "embedded": self.embedded,
                "matches": self.matches}


def check_candidate_id(candidate_id: str) -> str:
    candidate_id = candidate_id.strip()
    if not candidate_id:
        raise CandidateError("the candidate id is empty")
    if len(candidate_id) > MAX_CANDIDATE_ID_CHARS:
        raise CandidateError(f"the candidate id is longer than {MAX_CANDIDATE_ID_CHARS} characters")
    if any(not ch.isprintable() for ch in candidate_id):
        raise CandidateError("the candidate id holds control characters")
    return candidate_id


def embed_one(conn: psycopg.Connection, candidate_id: str, embedder: Any) -> bool:
    """Store the candidate's vector of the active model (if ``embedder`` is that model); True when current."""
    model = active_model(conn)
    row = conn.execute(
        "SELECT c.embedding_text, c.content_hash, e.content_hash FROM candidates c LEFT JOIN candidate_embeddings e "
        "ON e.candidate_id = c.candidate_id AND e.model = %s WHERE c.candidate_id = %s",
        (model.model if model else "", candidate_id)).fetchone()
    if row is None or model is None:
        return False
    text, content_hash, vector_hash = row
    if vector_hash == content_hash:
        return True
    if embedder is None or embedder.model != model.model or embedder.dims != model.dims:
        return False   # the pipeline embeds it with the right model

    register_vector(conn)
    vector = np.asarray(embedder.embed_documents([text])[0], dtype=np.float32)
    conn.execute(
        "INSERT INTO candidate_embeddings (candidate_id, model, dims, content_hash, embedding) VALUES (%s, %s, %s, %s, %s) "
        "ON CONFLICT (candidate_id, model) DO UPDATE SET dims = EXCLUDED.dims, content_hash = EXCLUDED.content_hash, "
        "embedding = EXCLUDED.embedding, embedded_at = now()",
        (candidate_id, model.model, model.dims, content_hash, vector))
    return True


def add_candidate(conn: psycopg.Connection, data: bytes, suffix: str, *, candidate_id: str | None = None,
                  default_id: str | None = None, preferences: dict[str, Any] | None = None, origin: str = "api",
                  embedder: Any = None, top_n: int = DEFAULT_TOP_N, reserve: int = DEFAULT_RESERVE) -> Added:
    """Add (or replace) one candidate from a resume's bytes; commits.

    The id is ``candidate_id`` if given, else the .json resume's ``id``, else ``default_id`` (a
    file's stem). Raises :class:`~jobpipe.candidates.documents.UnreadableResume`,
    :class:`~jobpipe.search.types.FilterError` (bad preferences) or :class:`CandidateConflict`.
    """
    record, _ = read_candidate(data, suffix, candidate_id or default_id or "", preferences=preferences)
    cid = check_candidate_id(candidate_id or record.candidate_id or default_id or "")
    record.profile.candidate_id = cid
    record.origin = origin
    row = conn.execute("SELECT origin, source_file FROM candidates WHERE candidate_id = %s", (cid,)).fetchone()
    if row is not None and row[0] == "folder":
        raise CandidateConflict(f"candidate {cid!r} comes from the drop folder file {row[1]}: edit or remove that file")
    with conn.transaction():
        outcome = upsert_candidate(conn, record)
        embedded = embed_one(conn, cid, embedder)
    if not conn.autocommit:
        conn.commit()
    matches = match_candidate_now(conn, cid, top_n=top_n, reserve=reserve) if embedded else 0
    return Added(cid, outcome, embedded, matches)


def delete_candidate(conn: psycopg.Connection, candidate_id: str, *, folder: Path | None = None) -> str | None:
    """Delete a candidate and everything stored of it; for a drop-folder candidate its file too.

    Returns the removed file's path below the folder (None for API/CLI candidates). One
    transaction for the rows; the file is removed inside it, so a file that cannot be removed
    leaves everything as it was (and says why).
    """
    row = conn.execute("SELECT origin, source_file FROM candidates WHERE candidate_id = %s", (candidate_id,)).fetchone()
    if row is None:
        raise UnknownCandidateError(f"unknown candidate_id {candidate_id!r}")
    origin, source_file = row
    path = None
    if origin == "folder" and source_file and folder is not None:
        if Path(folder).resolve() == DEMO_RESUMES_DIR.resolve():
            raise CandidateConflict(f"candidate {candidate_id!r} is one of the bundled demo resumes (read-only); "
                                    "set JOBPIPE_CANDIDATES to your own drop folder")
        path = Path(folder) / source_file
    with conn.transaction():
        delete_candidates(conn, [candidate_id], commit=False)
        if path is not None:
            try:
                path.unlink(missing_ok=True)
                path.with_name(Path(source_file).stem + PREFERENCES_SUFFIX).unlink(missing_ok=True)
            except OSError as exc:
                raise CandidateError(f"cannot remove the drop-folder file {source_file} ({type(exc).__name__}); "
                                     "nothing was deleted") from None
    if not conn.autocommit:
        conn.commit()
    return source_file if path is not None else None

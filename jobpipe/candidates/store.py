"""Candidate rows: write a profile idempotently, delete everything of a candidate at once, read back.

A profile row is rewritten only when what it holds changed (the ``match_hash`` covers the
profile, the preferences and the embedding text); an unchanged one keeps its row version, its
vector and its matches. Deleting a candidate removes the row, and with it (``ON DELETE
CASCADE``) its vectors, its match list and its match state, plus its quarantine entry, in one
transaction: no copy of the resume outlives the delete.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from jobpipe.candidates.models import CandidateProfile
from jobpipe.candidates.parse import parse_redacted, parser_version
from jobpipe.candidates.preferences import CandidatePreferences, effective, preferences_hash

# The embedding text is declared in vector_text (its code is part of the parser version); re-exported here.
from jobpipe.candidates.vector_text import RESUME_CHARS as RESUME_CHARS
from jobpipe.candidates.vector_text import embedding_text as embedding_text


class CandidateError(LookupError):
    """A candidate operation cannot be done; the message says why."""


class UnknownCandidateError(CandidateError):
    """No candidate has this id."""


class CandidateConflict(CandidateError):
    """The id belongs to a candidate managed elsewhere (a drop-folder file vs the API)."""


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class CandidateRecord:
    """Everything stored for one candidate."""

    profile: CandidateProfile
    preferences: CandidatePreferences = field(default_factory=CandidatePreferences)
    origin: str = "folder"
    source_file: str | None = None
    file_hash: str | None = None
    file_size: int | None = None
    file_mtime_ns: int | None = None

    @property
    def candidate_id(self) -> str:
        return self.profile.candidate_id

    def embedding_text(self) -> str:
        return embedding_text(self.profile)

    def match_hash(self) -> str:
        return preferences_hash(self.profile.as_json(), self.preferences.as_json(), content_hash(self.embedding_text()))


_UPSERT = """
INSERT INTO candidates AS c (candidate_id, origin, source_file, file_hash, file_size, file_mtime_ns, resume_text,
                             headline, skills, cities, experience_years, language, profile, preferences,
                             embedding_text, content_hash, match_hash, parser_version, updated_at)
VALUES (%(candidate_id)s, %(origin)s, %(source_file)s, %(file_hash)s, %(file_size)s, %(file_mtime_ns)s,
        %(resume_text)s, %(headline)s, %(skills)s, %(cities)s, %(experience_years)s, %(language)s, %(profile)s,
        %(preferences)s, %(embedding_text)s, %(content_hash)s, %(match_hash)s, %(parser_version)s, now())
ON CONFLICT (candidate_id) DO UPDATE SET
    origin = EXCLUDED.origin, source_file = EXCLUDED.source_file, file_hash = EXCLUDED.file_hash,
    file_size = EXCLUDED.file_size, file_mtime_ns = EXCLUDED.file_mtime_ns, resume_text = EXCLUDED.resume_text,
    headline = EXCLUDED.headline, skills = EXCLUDED.skills, cities = EXCLUDED.cities,
    experience_years = EXCLUDED.experience_years, language = EXCLUDED.language, profile = EXCLUDED.profile,
    preferences = EXCLUDED.preferences, embedding_text = EXCLUDED.embedding_text,
    content_hash = EXCLUDED.content_hash, match_hash = EXCLUDED.match_hash,
    parser_version = EXCLUDED.parser_version, updated_at = now()
WHERE c.match_hash IS DISTINCT FROM EXCLUDED.match_hash OR c.resume_text IS DISTINCT FROM EXCLUDED.resume_text
   OR c.parser_version IS DISTINCT FROM EXCLUDED.parser_version OR c.origin IS DISTINCT FROM EXCLUDED.origin
   OR c.source_file IS DISTINCT FROM EXCLUDED.source_file OR c.file_hash IS DISTINCT FROM EXCLUDED.file_hash
RETURNING (xmax = 0) AS inserted
"""
_TOUCH_FILE = """
UPDATE candidates SET file_size = %s, file_mtime_ns = %s WHERE candidate_id = %s
  AND (file_size IS DISTINCT FROM %s OR file_mtime_ns IS DISTINCT FROM %s)
"""


@dataclass
class UpsertCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0

    @property
    def changed(self) -> int:
        return self.inserted + self.updated


def upsert_candidate(conn: psycopg.Connection, record: CandidateRecord) -> str:
    """Write one candidate: "inserted", "updated" or "unchanged" (row not rewritten). No commit."""
    p = record.profile
    text = record.embedding_text()
    row = conn.execute(_UPSERT, {
        "candidate_id": p.candidate_id, "origin": record.origin, "source_file": record.source_file,
        "file_hash": record.file_hash, "file_size": record.file_size, "file_mtime_ns": record.file_mtime_ns,
        "resume_text": p.resume_text, "headline": p.headline, "skills": list(p.skills), "cities": list(p.cities),
        "experience_years": p.experience_years, "language": p.language, "profile": Jsonb(p.as_json()),
        "preferences": Jsonb(record.preferences.as_json()), "embedding_text": text, "content_hash": content_hash(text),
        "match_hash": record.match_hash(), "parser_version": parser_version(),
    }).fetchone()
    if row is None:
        if record.file_size is not None:   # same content, the file was only touched: remember its new stat
            conn.execute(_TOUCH_FILE, (record.file_size, record.file_mtime_ns, p.candidate_id,
                                       record.file_size, record.file_mtime_ns))
        return "unchanged"
    return "inserted" if row[0] else "updated"


def upsert_candidates(conn: psycopg.Connection, records: Iterable[CandidateRecord | CandidateProfile]) -> UpsertCounts:
    """Write many candidates and commit (a bare profile is an API candidate without preferences)."""
    counts = UpsertCounts()
    for record in records:
        if isinstance(record, CandidateProfile):
            record = CandidateRecord(record, origin="api")
        outcome = upsert_candidate(conn, record)
        setattr(counts, outcome, getattr(counts, outcome) + 1)
    conn.commit()
    return counts


def delete_candidates(conn: psycopg.Connection, candidate_ids: Sequence[str], *, commit: bool = True) -> int:
    """Delete the candidates, their vectors, matches, match state and quarantine entries; commit
    (unless ``commit=False``: then inside the caller's transaction).

    One transaction: either all of a candidate's data is gone, or none of it.
    """
    if not candidate_ids:
        return 0
    with conn.transaction():
        files = [r[0] for r in conn.execute(
            "SELECT source_file FROM candidates WHERE candidate_id = ANY(%s) AND source_file IS NOT NULL",
            (list(candidate_ids),))]
        # explicit deletes before the row's (the cascade would do it too): nothing depends on a FK's presence
        conn.execute("DELETE FROM candidate_matches WHERE candidate_id = ANY(%s)", (list(candidate_ids),))
        conn.execute("DELETE FROM candidate_match_state WHERE candidate_id = ANY(%s)", (list(candidate_ids),))
        conn.execute("DELETE FROM candidate_embeddings WHERE candidate_id = ANY(%s)", (list(candidate_ids),))
        deleted = conn.execute("DELETE FROM candidates WHERE candidate_id = ANY(%s)", (list(candidate_ids),)).rowcount
        if files:
            conn.execute("DELETE FROM candidate_quarantine WHERE source_file = ANY(%s)", (files,))
    if commit and not conn.autocommit:
        conn.commit()
    return deleted


# ---------------------------------------------------------------- quarantine
def quarantine_file(conn: psycopg.Connection, source_file: str, reason: str, *, file_hash: str | None = None,
                    file_size: int | None = None, file_mtime_ns: int | None = None) -> bool:
    """Record an unreadable file (True when it is new or its reason or content changed). No commit."""
    row = conn.execute(
        "INSERT INTO candidate_quarantine AS q (source_file, reason, file_hash, file_size, file_mtime_ns) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (source_file) DO UPDATE SET reason = EXCLUDED.reason, "
        "file_hash = EXCLUDED.file_hash, file_size = EXCLUDED.file_size, file_mtime_ns = EXCLUDED.file_mtime_ns, "
        "quarantined_at = now() WHERE q.reason IS DISTINCT FROM EXCLUDED.reason "
        "OR q.file_hash IS DISTINCT FROM EXCLUDED.file_hash RETURNING 1",
        (source_file, reason, file_hash, file_size, file_mtime_ns)).fetchone()
    return row is not None


def quarantined(conn: psycopg.Connection) -> list[dict[str, Any]]:
    return [{"source_file": f, "reason": r, "quarantined_at": t} for f, r, t in conn.execute(
        "SELECT source_file, reason, quarantined_at FROM candidate_quarantine ORDER BY source_file")]


# ---------------------------------------------------------------- reading
@dataclass
class StoredCandidate:
    candidate_id: str
    origin: str
    source_file: str | None
    profile: CandidateProfile
    preferences: CandidatePreferences
    embedding_text: str
    content_hash: str
    match_hash: str
    file_hash: str | None
    file_size: int | None
    file_mtime_ns: int | None
    parser_version: int
    created_at: datetime | None
    updated_at: datetime | None

    def show(self) -> dict[str, Any]:
        """What ``jobpipe candidates show --json`` and ``GET /candidates/{id}`` print."""
        eff = effective(self.profile, self.preferences)
        return {
            "candidate_id": self.candidate_id, "origin": self.origin, "source_file": self.source_file,
            "profile": self.profile.as_json(), "preferences": self.preferences.as_json(),
            "effective_preferences": eff.as_json(), "embedding_text": self.embedding_text,
            "created_at": self.created_at, "updated_at": self.updated_at,
        }


_COLUMNS = ("candidate_id, origin, source_file, resume_text, profile, preferences, embedding_text, content_hash, "
            "match_hash, file_hash, file_size, file_mtime_ns, parser_version, created_at, updated_at")


def _stored(row: Sequence[Any]) -> StoredCandidate:
    (cid, origin, source_file, text, profile, prefs, emb, chash, mhash, fhash, fsize, fmtime, version,
     created, updated) = row
    return StoredCandidate(cid, origin, source_file, CandidateProfile.from_json(cid, text, profile or {}),
                           CandidatePreferences.model_validate(prefs or {}), emb, chash, mhash, fhash, fsize, fmtime,
                           version, created, updated)


def load_candidate(conn: psycopg.Connection, candidate_id: str) -> StoredCandidate:
    row = conn.execute(f"SELECT {_COLUMNS} FROM candidates WHERE candidate_id = %s", (candidate_id,)).fetchone()
    if row is None:
        raise UnknownCandidateError(f"unknown candidate_id {candidate_id!r}")
    return _stored(row)


def load_candidates(conn: psycopg.Connection, candidate_ids: Sequence[str] | None = None) -> list[StoredCandidate]:
    if candidate_ids is None:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM candidates ORDER BY candidate_id").fetchall()
    else:
        rows = conn.execute(f"SELECT {_COLUMNS} FROM candidates WHERE candidate_id = ANY(%s) ORDER BY candidate_id",
                            (list(candidate_ids),)).fetchall()
    return [_stored(r) for r in rows]


def list_candidates(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """One summary line per candidate (no resume text): id, origin, title, skills, matches."""
    rows = conn.execute("""
        SELECT c.candidate_id, c.origin, c.source_file, c.headline, c.profile->>'seniority',
               c.experience_years, c.skills, c.cities, c.updated_at,
               (SELECT count(*) FROM candidate_matches m WHERE m.candidate_id = c.candidate_id),
               EXISTS (SELECT 1 FROM candidate_embeddings e JOIN embedding_models em ON em.model = e.model
                       AND em.state = 'active' WHERE e.candidate_id = c.candidate_id AND e.content_hash = c.content_hash)
        FROM candidates c ORDER BY c.candidate_id
    """).fetchall()
    return [{"candidate_id": r[0], "origin": r[1], "source_file": r[2], "headline": r[3], "seniority": r[4],
             "experience_years": None if r[5] is None else float(r[5]), "skills": list(r[6] or []),
             "cities": list(r[7] or []), "updated_at": r[8], "matches": int(r[9]), "embedded": bool(r[10])}
            for r in rows]


def folder_candidates(conn: psycopg.Connection) -> dict[str, dict[str, Any]]:
    """Drop-folder candidates by source file, with what tells an unchanged file."""
    return {r[0]: {"candidate_id": r[1], "file_hash": r[2], "file_size": r[3], "file_mtime_ns": r[4],
                   "parser_version": r[5]}
            for r in conn.execute("SELECT source_file, candidate_id, file_hash, file_size, file_mtime_ns, "
                                  "parser_version FROM candidates WHERE origin = 'folder'")}


def candidate_origins(conn: psycopg.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT candidate_id, origin FROM candidates").fetchall())


def reprofile_outdated(conn: psycopg.Connection) -> int:
    """Profile again the CLI and API candidates whose profile is of an older parser; commits.

    Folder candidates are read again from their files when ``parser_version()`` changes; these have
    no file, so they are profiled from their stored resume text, which is already redacted (no
    personal detail comes back). A parser or embedding-text change thus reaches every candidate,
    and each one whose embedding text changed is embedded again by the usual change detection.
    Returns how many were rewritten.
    """
    ids = [r[0] for r in conn.execute(
        "SELECT candidate_id FROM candidates WHERE origin <> 'folder' AND parser_version <> %s ORDER BY candidate_id",
        (parser_version(),))]
    rewritten = 0
    for start in range(0, len(ids), 200):
        for old in load_candidates(conn, ids[start:start + 200]):
            p = old.profile
            profile = parse_redacted(old.candidate_id, p.resume_text, today=date.fromisoformat(p.as_of) if p.as_of
                                     else None, truncated=p.truncated, redacted=p.redacted)
            record = CandidateRecord(profile, old.preferences, origin=old.origin, source_file=old.source_file,
                                     file_hash=old.file_hash, file_size=old.file_size, file_mtime_ns=old.file_mtime_ns)
            rewritten += upsert_candidate(conn, record) != "unchanged"
        if not conn.autocommit:
            conn.commit()
    return rewritten

"""Write candidate profiles to ``candidates``, idempotently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import psycopg

from jobpipe.candidates.models import CandidateProfile

_UPSERT = """
INSERT INTO candidates (candidate_id, name, resume_text, headline, skills, cities, experience_years,
                        language, content_hash, updated_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, now())
ON CONFLICT (candidate_id) DO UPDATE SET
    name = EXCLUDED.name, resume_text = EXCLUDED.resume_text, headline = EXCLUDED.headline,
    skills = EXCLUDED.skills, cities = EXCLUDED.cities, experience_years = EXCLUDED.experience_years,
    language = EXCLUDED.language, content_hash = EXCLUDED.content_hash, updated_at = now()
WHERE candidates.content_hash IS DISTINCT FROM EXCLUDED.content_hash
RETURNING (xmax = 0) AS inserted
"""


@dataclass
class CandidateUpsertCounts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0


def upsert_candidates(conn: psycopg.Connection, profiles: Iterable[CandidateProfile]) -> CandidateUpsertCounts:
    """Insert new profiles, rewrite changed ones, leave identical ones untouched; commit.

    An unchanged profile (same ``content_hash``) is not rewritten, so its row, its
    ``updated_at`` and its vector stay as they are and nothing downstream recomputes.
    """
    counts = CandidateUpsertCounts()
    with conn.cursor() as cur:
        for p in profiles:
            cur.execute(_UPSERT, (
                p.candidate_id, p.name, p.resume_text, p.headline, list(p.skills), list(p.cities),
                p.experience_years, p.language, p.content_hash,
            ))
            row = cur.fetchone()
            if row is None:
                counts.unchanged += 1
            elif row[0]:
                counts.inserted += 1
            else:
                counts.updated += 1
    conn.commit()
    return counts


def matched_candidates(conn: psycopg.Connection) -> int:
    """Candidates that have at least one precomputed match."""
    return conn.execute("SELECT count(DISTINCT candidate_id) FROM candidate_matches").fetchone()[0]  # type: ignore[index]

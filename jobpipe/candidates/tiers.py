"""Which of a posting's skills it only names as nice-to-have, kept per content hash.

A posting lists its skills in one breath, but recruiters read "Go is a plus" or "熟悉 Rust
者优先" differently from "5+ years of Python": a candidate missing a nice-to-have skill is
still a fit. The split is read from the description: lines under a heading such as "Nice to
have", "Preferred qualifications", "Bonus points", "加分项", and sentences that say so ("a
plus", "preferred", "desirable", "优先", "加分", "更佳"). A skill also named elsewhere (the title,
a requirement line) stays required.

Derived like the keyword terms: computed for open jobs whose content hash changed, stored in
``job_skill_tiers``; a job without a row simply has no nice-to-have skills.
"""

from __future__ import annotations

import re

import psycopg

from jobpipe.normalize import extract_skills
from jobpipe.store.jobs import load_jobs

_NICE_HEADING = re.compile(
    r"^\s*(?:[#*\-•]\s*)*(?:nice[- ]to[- ]haves?|preferred(?: qualifications| skills| experience)?|bonus(?: points)?|"
    r"pluses|(?:it'?s )?a plus|desirable(?: skills)?|good to have|extra credit|would be nice|optional|"
    r"加分项?|优先条件|优先考虑|加分条件|更佳)\s*[:：]?\s*(.*)$", re.I)
_HEADING = re.compile(
    r"^\s*(?:[#*\-•]\s*)*(?:requirements?|qualifications?|minimum qualifications|basic qualifications|"
    r"responsibilities|what you(?:'ll| will) do|what we(?:'re| are) looking for|about (?:you|the role|us)|"
    r"you have|must[- ]haves?|required|岗位职责|任职要求|职位要求|岗位要求|工作职责|职位描述|任职资格)\s*[:：]?\s*$", re.I)
_NICE_SENTENCE = re.compile(
    r"\bnice[- ]to[- ]have\b|\ba (?:big |huge |strong )?plus\b|\bare a plus\b|\bis a plus\b|\bpreferred\b|\bpreferably\b|"
    r"\bdesirable\b|\bbonus\b|\bideally\b|\bgood to have\b|\bnot required\b|\boptional\b|\bwould be (?:great|nice)\b|"
    r"优先|加分|更佳|为佳|者佳", re.I)
_SENTENCE_SPLIT = re.compile(r"(?<=[.;!?。；！？])\s+|(?<=[。；！？，])")


def nice_to_have(title: str, description: str, skills: list[str]) -> list[str]:
    """The posting's skills named only in nice-to-have lines or sentences (order of ``skills``)."""
    if not skills or not description:
        return []
    required_text: list[str] = [title or ""]
    nice_text: list[str] = []
    in_nice = False
    for line in description.splitlines():
        if not line.strip():
            continue
        m = _NICE_HEADING.match(line)
        if m:
            in_nice = True
            if m.group(1):
                nice_text.append(m.group(1))
            continue
        if _HEADING.match(line):
            in_nice = False
            continue
        if in_nice:
            nice_text.append(line)
            continue
        for sentence in _SENTENCE_SPLIT.split(line):
            (nice_text if _NICE_SENTENCE.search(sentence) else required_text).append(sentence)
    if not nice_text:
        return []
    nice = set(extract_skills("\n".join(nice_text))) - set(extract_skills("\n".join(required_text)))
    return [s for s in skills if s in nice]


def sync_skill_tiers(conn: psycopg.Connection, *, batch_size: int = 2000) -> int:
    """Compute the tiers of open jobs whose content changed since (or that have none); commits."""
    total = 0
    after = 0
    while True:
        hashes: dict[int, str] = dict(conn.execute(
            "SELECT j.job_id, j.content_hash FROM jobs j LEFT JOIN job_skill_tiers t ON t.job_id = j.job_id "
            "WHERE j.closed_at IS NULL AND j.job_id > %s AND (t.job_id IS NULL OR t.content_hash <> j.content_hash) "
            "ORDER BY j.job_id LIMIT %s", (after, batch_size)).fetchall())
        if not hashes:
            break
        ids = sorted(hashes)
        jobs = load_jobs(conn, ids, ("job_id", "title", "description_text", "skills"))
        rows = [(job_id, hashes[job_id], nice_to_have(j["title"], j["description_text"], j["skills"]))
                for job_id, j in jobs.items() if job_id in hashes]
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO job_skill_tiers (job_id, content_hash, nice_to_have) VALUES (%s, %s, %s) "
                "ON CONFLICT (job_id) DO UPDATE SET content_hash = EXCLUDED.content_hash, "
                "nice_to_have = EXCLUDED.nice_to_have", rows)
        total += len(rows)
        after = ids[-1]
    if not conn.autocommit:
        conn.commit()
    return total

"""The read model of ``jobs``: one curated job as every reader shows it.

``jobpipe jobs show``, the service's ``GET /jobs/{job_id}``, the MCP ``get_job`` tool, search
results and candidate matches all read jobs through here, so they print the same shape: the
normalized posting's fields (from :mod:`jobpipe.rows`) with ``salary`` as one block
(:meth:`jobpipe.models.Salary.as_dict`), numbers as JSON numbers, and ``status`` open/closed.
A reader asks for the fields it needs (search results leave the description out).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from jobpipe.models import Salary, amount
from jobpipe.rows import DERIVED_JOB_COLUMNS, JOB_LIFECYCLE_COLUMNS, POSTING_COLUMNS, SALARY_COLUMNS, Column

#: Hashes are bookkeeping, not part of what a reader is shown.
_HIDDEN = frozenset({"content_hash", "record_hash"})
#: The columns a reader can be shown, by name.
JOB_COLUMNS: dict[str, Column] = {
    c.name: c for c in (*JOB_LIFECYCLE_COLUMNS[:1], *POSTING_COLUMNS, *DERIVED_JOB_COLUMNS, *JOB_LIFECYCLE_COLUMNS[1:])
    if c.name not in _HIDDEN
}
_SALARY_NAMES = tuple(c.name for c in SALARY_COLUMNS)
_SALARY_FIELDS = tuple(c.path[1] for c in SALARY_COLUMNS)

#: Every field a job has, in order; ``salary`` stands for its block of columns, ``status`` is derived.
JOB_FIELDS: tuple[str, ...] = tuple(dict.fromkeys(
    "salary" if name in _SALARY_NAMES else name for name in JOB_COLUMNS)) + ("status",)
#: What a result line needs: who, where, pay, link (no description).
SUMMARY_FIELDS: tuple[str, ...] = ("job_id", "source", "external_id", "title", "company", "cities", "country",
                                   "remote", "job_type", "seniority", "salary", "skills", "url", "posted_at",
                                   "dedupe_key", "status")


@functools.lru_cache(maxsize=64)
def _select_list(fields: tuple[str, ...]) -> str:
    """The SELECT list of ``fields`` (column names come from the declaration, never from callers)."""
    out: list[str] = []
    for name in fields:
        if name == "salary":
            out.extend(_SALARY_NAMES)
        elif name == "status":
            out.append("closed_at")
        elif name in JOB_COLUMNS:
            out.append(name)
        else:
            raise ValueError(f"jobs have no field {name!r}; known: {', '.join(JOB_FIELDS)}")
    return ", ".join(dict.fromkeys(out))


def _shape(row: dict[str, Any], fields: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in fields:
        if name == "salary":
            out["salary"] = Salary(**{f: row[c] for f, c in zip(_SALARY_FIELDS, _SALARY_NAMES)}).as_dict()
        elif name == "status":
            out["status"] = "open" if row["closed_at"] is None else "closed"
        else:
            value = row[name]
            kind = JOB_COLUMNS[name].pg_type
            if kind == "numeric":
                value = amount(value)
            elif kind == "text[]":
                value = list(value or [])
            out[name] = value
    return out


def _select(conn: psycopg.Connection, fields: Sequence[str], where: str,
            params: Sequence[Any]) -> list[dict[str, Any]]:
    cur = conn.execute(f"SELECT {_select_list(tuple(fields))} FROM jobs WHERE {where}", params)
    keys = [d.name for d in cur.description or ()]
    return [_shape(dict(zip(keys, r, strict=True)), fields) for r in cur.fetchall()]


def load_job(conn: psycopg.Connection, source: str, external_id: str,
             fields: Sequence[str] = JOB_FIELDS) -> dict[str, Any] | None:
    rows = _select(conn, fields, "source = %s AND external_id = %s", (source, external_id))
    return rows[0] if rows else None


def load_job_by_id(conn: psycopg.Connection, job_id: int, fields: Sequence[str] = JOB_FIELDS) -> dict[str, Any] | None:
    rows = _select(conn, fields, "job_id = %s", (job_id,))
    return rows[0] if rows else None


def load_jobs(conn: psycopg.Connection, job_ids: Sequence[int],
              fields: Sequence[str] = SUMMARY_FIELDS) -> dict[int, dict[str, Any]]:
    """Jobs by id (missing ids are absent: deleted meanwhile), ``job_id`` always included."""
    if not job_ids:
        return {}
    wanted = fields if "job_id" in fields else ("job_id", *fields)
    rows = _select(conn, wanted, "job_id = ANY(%s)", (list(job_ids),))
    return {r["job_id"]: r for r in rows}


@dataclass(frozen=True)
class Stated:
    """What a job holds of a query's statements (``stated_matches``)."""

    skills: tuple[str, ...]        # the named skills it lists, in the query's order
    seniority: str | None          # its level, when it is one of the preferred ones
    conditions: tuple[bool, ...]   # each stated condition, in the order given: it meets it


def stated_matches(conn: psycopg.Connection, job_ids: Sequence[int], skills: Mapping[str, Collection[str]],
                   levels: Collection[str], conditions: Sequence[tuple[str, Mapping[str, Any]]] = ()) -> dict[int, Stated]:
    """Which of ``job_ids`` hold what a query states; jobs holding nothing are absent.

    ``skills``: each named skill -> the listed skills that count for it (itself, and narrower ones);
    ``levels``: the seniority levels preferred (``Understood.seniority_levels``);
    ``conditions``: SQL conditions on ``jobs j`` with their parameters (``jobpipe.search.filters``'
    fragments, their parameter names distinct), each evaluated per job; NULL counts as not met.
    """
    if not job_ids or not (skills or levels or conditions):
        return {}
    listed_any = sorted(set().union(*skills.values())) if skills else []
    params: dict[str, Any] = {"ids": list(job_ids), "listed": listed_any, "levels": sorted(levels)}
    for _, values in conditions:
        params.update(values)
    met = [f"coalesce(({where}), false)" for where, _ in conditions]
    # Only the jobs holding something come back: most candidates hold nothing.
    holds = " OR ".join(["j.skills && %(listed)s::text[]", "j.seniority = ANY(%(levels)s::text[])", *met])
    rows = conn.execute(f"SELECT j.job_id, j.skills, j.seniority{''.join(', ' + m for m in met)} FROM jobs j "
                        f"WHERE j.job_id = ANY(%(ids)s) AND ({holds})", params).fetchall()
    out: dict[int, Stated] = {}
    for job_id, listed, level, *flags in rows:
        have = set(listed or ()).intersection(listed_any)
        out[int(job_id)] = Stated(tuple(s for s, names in skills.items() if have.intersection(names)),
                                  level if level in levels else None, tuple(bool(f) for f in flags))
    return out


def load_open_jobs(conn: psycopg.Connection, fields: Sequence[str] = SUMMARY_FIELDS, *, after_id: int = 0,
                   limit: int = 20_000) -> list[dict[str, Any]]:
    """Open jobs by ascending ``job_id`` after ``after_id``, ``limit`` at a time (page through all of them)."""
    wanted = fields if "job_id" in fields else ("job_id", *fields)
    return _select(conn, wanted, "closed_at IS NULL AND job_id > %s ORDER BY job_id LIMIT %s", (after_id, limit))


def open_jobs_of_companies(conn: psycopg.Connection, names: Sequence[str]) -> dict[int, str]:
    """Open jobs whose company name contains one of ``names`` (case-insensitive): job_id -> company.

    A first, generous cut (callers decide what counts as the same company)."""
    patterns = ["%" + n.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                for n in names if n and n.strip()]
    if not patterns:
        return {}
    rows = _select(conn, ("job_id", "company"), "closed_at IS NULL AND lower(company) LIKE ANY(%s)", (patterns,))
    return {r["job_id"]: r["company"] for r in rows}

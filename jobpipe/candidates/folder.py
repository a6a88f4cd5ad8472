"""The drop folder (``JOBPIPE_CANDIDATES``): one file = one candidate, kept in step with the table.

Every run (and every folder change, through the sensor) brings the ``candidates`` table in
line with the folder: a new file is a new candidate, an edited one is parsed again, a removed
one deletes its candidate, and a file that cannot be read is quarantined with the reason
(``jobpipe candidates list`` shows them) instead of being skipped silently. Unchanged files
are recognized by size and modification time first and by content hash second, so a nightly
run over an unchanged folder reads no file.

The id is the file's path below the folder without its suffix (``anna.pdf`` -> ``anna``,
``team/bo.docx`` -> ``team/bo``), or the ``id`` of a .json resume. Preferences go in the
.json resume's ``preferences`` or in ``<stem>.preferences.json`` beside the file. Hidden
files (``.DS_Store``) and office lock files (``~$cv.docx``) are not resumes and are ignored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import psycopg

from jobpipe.candidates.documents import (
    PREFERENCES_SUFFIX,
    SUFFIXES,
    UnreadableResume,
    file_hash,
    read_bytes,
)
from jobpipe.candidates.parse import parse_resume, parser_version
from jobpipe.candidates.preferences import CandidatePreferences
from jobpipe.candidates.store import (
    CandidateRecord,
    candidate_origins,
    delete_candidates,
    folder_candidates,
    quarantine_file,
    upsert_candidate,
)
from jobpipe.db.rows import one
from jobpipe.search.types import FilterError

MAX_CANDIDATE_ID_CHARS = 128


class DropFolderError(RuntimeError):
    """The drop folder cannot be synced as a whole (the message says why); nothing was deleted."""


class _FileStat(TypedDict, total=False):
    """What a quarantine row records about the file (``quarantine_file``'s keyword arguments)."""

    file_size: int
    file_mtime_ns: int
    file_hash: str


@dataclass(frozen=True)
class FolderFile:
    """One resume file of the folder (and its preferences file, if any)."""

    path: Path
    source_file: str            # posix path below the folder
    candidate_id: str           # path without suffix (a .json resume may give its own)
    preferences_path: Path | None
    size: int
    mtime_ns: int


@dataclass
class FolderSync:
    """What one sync did (counts only: never ids or file names, which may be personal)."""

    profiled: int = 0          # candidates inserted or updated
    unchanged: int = 0
    deleted: int = 0
    quarantined: int = 0       # files that could not be read, as of this sync
    candidates: int = 0        # folder candidates after the sync

    def as_metadata(self) -> dict[str, int]:
        return {"profiled": self.profiled, "unchanged": self.unchanged, "deleted": self.deleted,
                "quarantined": self.quarantined, "candidates": self.candidates}


@dataclass
class Listing:
    files: list[FolderFile] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)   # source_file -> reason


def _ignored(rel: Path) -> bool:
    return any(part.startswith(".") or part.startswith("~$") for part in rel.parts)


def list_folder(folder: Path) -> Listing:
    """The folder's resume files, and the reason for each file that is not one."""
    listing = Listing()
    paths = sorted(p for p in folder.rglob("*") if p.is_file() and not _ignored(p.relative_to(folder)))
    sidecars = {p for p in paths if p.name.lower().endswith(PREFERENCES_SUFFIX)}
    by_stem: dict[tuple[Path, str], Path] = {}
    for p in sidecars:
        by_stem[(p.parent, p.name[: -len(PREFERENCES_SUFFIX)])] = p
    seen_ids: dict[str, str] = {}
    used_sidecars: set[Path] = set()
    for path in paths:
        if path in sidecars:
            continue
        rel = path.relative_to(folder).as_posix()
        if path.suffix.lower() not in SUFFIXES:
            listing.problems[rel] = (f"unsupported format {path.suffix or '(no suffix)'}; "
                                     f"supported: {', '.join(SUFFIXES)}" if path.suffix.lower() != ".doc" else
                                     "legacy Word .doc is not supported: save it as .docx or .pdf")
            continue
        candidate_id = path.relative_to(folder).with_suffix("").as_posix()
        if len(candidate_id) > MAX_CANDIDATE_ID_CHARS:
            listing.problems[rel] = f"the id (the path without suffix) is longer than {MAX_CANDIDATE_ID_CHARS} characters"
            continue
        if candidate_id in seen_ids:
            listing.problems[rel] = f"its id {candidate_id!r} is already taken by {seen_ids[candidate_id]}"
            continue
        seen_ids[candidate_id] = rel
        sidecar = by_stem.get((path.parent, path.stem))
        if sidecar is not None:
            used_sidecars.add(sidecar)
        stat = path.stat()
        size, mtime = stat.st_size, stat.st_mtime_ns
        if sidecar is not None:
            side = sidecar.stat()
            size, mtime = size + side.st_size, max(mtime, side.st_mtime_ns)
        listing.files.append(FolderFile(path, rel, candidate_id, sidecar, size, mtime))
    for sidecar in sorted(sidecars - used_sidecars):
        listing.problems[sidecar.relative_to(folder).as_posix()] = "preferences file without a resume of the same name"
    return listing


def folder_fingerprint(folder: Path) -> str:
    """A digest of the folder's listing (paths, sizes, modification times): the sensor's cursor.

    Only the digest leaves this function: file names may be personal and never reach Dagster.
    """
    digest = hashlib.sha256()
    if folder.is_dir():
        for p in sorted(folder.rglob("*")):
            if p.is_file() and not _ignored(p.relative_to(folder)):
                st = p.stat()
                digest.update(f"{p.relative_to(folder).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode(
                    "utf-8", "surrogatepass"))
    else:
        digest.update(b"<missing>")
    return digest.hexdigest()


def read_candidate(data: bytes, suffix: str, candidate_id: str, *, preferences: dict | None = None,
                   ) -> tuple[CandidateRecord, dict | None]:
    """A record from a resume's bytes (redacted and profiled); raises UnreadableResume or FilterError."""
    read = read_bytes(data, suffix)
    given = read.preferences
    if given is not None and preferences is not None:
        raise UnreadableResume("preferences given twice: in the .json resume and in a preferences file")
    prefs = CandidatePreferences.parse(given if given is not None else preferences)
    cid = read.candidate_id or candidate_id
    profile = parse_resume(cid, read.text, read.names, truncated=read.truncated, today=read.written_at)
    return CandidateRecord(profile, prefs, file_hash=file_hash(data)), given


def sync_folder(conn: psycopg.Connection, folder: Path | str, *,
                progress: Callable[[int, int], None] | None = None) -> FolderSync:
    """Bring the folder candidates in line with the folder (see the module docstring); commits."""
    folder = Path(folder)
    stored = folder_candidates(conn)
    if not folder.is_dir():
        if stored:
            raise DropFolderError(
                f"the candidates drop folder {folder} is missing or not a folder; its {len(stored)} candidates are "
                "kept (a folder that is merely unmounted must not delete them). Restore it, or point "
                "JOBPIPE_CANDIDATES at the right folder.")
        return FolderSync()
    listing = list_folder(folder)
    origins = candidate_origins(conn)
    result = FolderSync()
    present: set[str] = set()
    taken: set[str] = set()     # ids written by this sync (a renamed file keeps its candidate's id)
    quarantine: dict[str, tuple[str, _FileStat]] = {f: (reason, {}) for f, reason in listing.problems.items()}
    for i, entry in enumerate(listing.files, 1):
        present.add(entry.source_file)
        old = stored.get(entry.source_file)
        if old is not None and old["file_size"] == entry.size and old["file_mtime_ns"] == entry.mtime_ns \
                and old["parser_version"] == parser_version():
            result.unchanged += 1
            continue
        stat: _FileStat = {"file_size": entry.size, "file_mtime_ns": entry.mtime_ns}
        try:
            data = entry.path.read_bytes()
            side = entry.preferences_path.read_bytes() if entry.preferences_path else None
        except OSError as exc:
            quarantine[entry.source_file] = (f"cannot be opened ({type(exc).__name__})", stat)
            continue
        digest = file_hash(data + b"\0" + (side or b""))
        stat["file_hash"] = digest
        if old is not None and old["file_hash"] == digest and old["parser_version"] == parser_version():
            conn.execute("UPDATE candidates SET file_size = %s, file_mtime_ns = %s WHERE source_file = %s",
                         (entry.size, entry.mtime_ns, entry.source_file))
            result.unchanged += 1
            continue
        try:
            sidecar = None
            if side is not None:
                try:
                    sidecar = json.loads(side.decode("utf-8-sig"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    raise UnreadableResume("its preferences file is not valid JSON") from None
                if not isinstance(sidecar, dict):
                    raise UnreadableResume("its preferences file must hold a JSON object")
            record, _ = read_candidate(data, entry.path.suffix, entry.candidate_id, preferences=sidecar)
        except UnreadableResume as exc:
            quarantine[entry.source_file] = (str(exc), stat)
            continue
        except FilterError as exc:
            quarantine[entry.source_file] = (f"preferences: {exc}", stat)
            continue
        cid = record.candidate_id
        owner = next((f for f, s in stored.items() if s["candidate_id"] == cid and f != entry.source_file), None)
        if origins.get(cid) not in (None, "folder"):
            quarantine[entry.source_file] = (
                f"its id {cid!r} belongs to a candidate added through the {origins[cid]}; rename the file", stat)
            continue
        if owner is not None and owner in {e.source_file for e in listing.files}:
            quarantine[entry.source_file] = (f"its id {cid!r} is already taken by {owner}", stat)
            continue
        if owner is not None:
            delete_candidates(conn, [cid])   # the file was renamed: the new name takes the candidate over
        record.origin, record.source_file = "folder", entry.source_file
        record.file_hash, record.file_size, record.file_mtime_ns = digest, entry.size, entry.mtime_ns
        taken.add(cid)
        with conn.transaction():
            outcome = upsert_candidate(conn, record)
            conn.execute("DELETE FROM candidate_quarantine WHERE source_file = %s", (entry.source_file,))
        if outcome == "unchanged":
            result.unchanged += 1
        else:
            result.profiled += 1
        if progress:
            progress(i, len(listing.files))
    gone = [s["candidate_id"] for f, s in stored.items() if f not in present and s["candidate_id"] not in taken]
    result.deleted = delete_candidates(conn, gone)
    with conn.transaction():
        for source_file, (reason, stat) in quarantine.items():
            quarantine_file(conn, source_file, reason, **stat)
        conn.execute("DELETE FROM candidate_quarantine WHERE NOT (source_file = ANY(%s))", (sorted(quarantine),))
    result.quarantined = len(quarantine)
    result.candidates = one(conn.execute("SELECT count(*) FROM candidates WHERE origin = 'folder'"))[0]
    if not conn.autocommit:
        conn.commit()
    return result

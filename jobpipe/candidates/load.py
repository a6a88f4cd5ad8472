"""Read resumes from a folder of text files or from one JSONL file."""

from __future__ import annotations

import json
from pathlib import Path

from jobpipe.candidates.models import ResumeDocument

RESUME_SUFFIXES = (".txt", ".md")


class ResumeLoadError(ValueError):
    """A resume file cannot be read as documented (the message names the file and line)."""


def _from_jsonl(path: Path) -> list[ResumeDocument]:
    docs: list[ResumeDocument] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ResumeLoadError(f"{path.name}:{lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not row.get("id") or not isinstance(row.get("text"), str):
            raise ResumeLoadError(f"{path.name}:{lineno}: expected an object with 'id' and 'text'")
        if row["text"].strip():
            docs.append(ResumeDocument(str(row["id"]), row["text"], row.get("name") or None))
    return docs


def _from_folder(path: Path) -> list[ResumeDocument]:
    docs = []
    for file in sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in RESUME_SUFFIXES):
        text = file.read_text(encoding="utf-8", errors="replace")
        if text.strip():
            # The id is the path below the folder without suffix: stable across runs and unique.
            candidate_id = file.relative_to(path).with_suffix("").as_posix()
            docs.append(ResumeDocument(candidate_id, text))
    return docs


def load_resumes(path: str | Path) -> list[ResumeDocument]:
    """Resumes from a folder (``*.txt``/``*.md``, id = file name) or a JSONL file ``{id, name?, text}``.

    A missing path yields no resumes (a deployment without candidates is normal); a file in
    another format is an error rather than silently nothing.
    """
    path = Path(path)
    if not path.exists():
        return []
    if path.is_dir():
        docs = _from_folder(path)
    elif path.suffix.lower() in (".jsonl", ".ndjson"):
        docs = _from_jsonl(path)
    elif path.suffix.lower() in RESUME_SUFFIXES:
        docs = [ResumeDocument(path.stem, path.read_text(encoding="utf-8", errors="replace"))]
    else:
        raise ResumeLoadError(f"{path}: expected a folder of .txt/.md resumes or a .jsonl file")
    ids = [d.candidate_id for d in docs]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ResumeLoadError(f"{path}: duplicate candidate ids {duplicates[:5]}")
    return docs

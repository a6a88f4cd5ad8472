"""The sources file: what to fetch, written by users, checked before anything runs.

Each entry is validated by its kind's pydantic model (a union discriminated by ``kind``;
the models live with their kinds in ``jobpipe/sources/kinds/``). Every mistake of the whole
file is reported at once, one line each naming the file, the source and the key, because
the person reading it is editing YAML, not Python.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from jobpipe.sources.kinds import ENTRY, KINDS
from jobpipe.sources.options import SourceConfig

__all__ = ["SourceConfig", "SourcesFileError", "expand_env", "load_sources", "parse_sources"]

log = logging.getLogger("jobpipe.sources")

_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


class SourcesFileError(ValueError):
    """The sources file cannot be used as written; ``problems`` holds one line per mistake."""

    def __init__(self, problems: list[str] | str) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


def expand_env(value: str) -> str:
    """``${VAR}`` and ``${VAR:-default}``; a missing variable without default is an error."""
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        current = os.environ.get(name)
        if current:
            return current
        if default is not None:
            return default
        raise KeyError(name)
    return _ENV_RE.sub(replace, value)


def load_sources(path: str | os.PathLike[str]) -> list[SourceConfig]:
    """Read and validate a sources file (every entry, enabled or not)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SourcesFileError(f"{path}: cannot read the sources file ({exc.strerror or exc})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourcesFileError(f"{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}): "
                               "save the sources file as UTF-8") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SourcesFileError(f"{path}: not valid YAML: {exc}") from exc
    return parse_sources(data, path)


def parse_sources(data: Any, path: Path) -> list[SourceConfig]:
    if not isinstance(data, dict) or "sources" not in data:
        raise SourcesFileError(f"{path}: expected a top-level 'sources:' list")
    unknown_top = sorted(set(data) - {"sources"})
    if unknown_top:
        raise SourcesFileError(f"{path}: unknown top-level key {unknown_top[0]!r} (only 'sources' is allowed)")
    entries = data["sources"]
    if not isinstance(entries, list):
        raise SourcesFileError(f"{path}: 'sources' must be a list of sources")
    if not entries:
        raise SourcesFileError(f"{path}: 'sources' lists no sources (add at least one)")
    configs: list[SourceConfig] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries, start=1):
        config, where, found = _parse_entry(entry, index, path)
        problems.extend(f"{path}: {where}: {key}: {text}" for key, text in found)
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and _NAME_RE.fullmatch(name):
            if name in seen:
                problems.append(f"{path}: source {name!r}: name: duplicate name (also used by source #{seen[name]})")
            else:
                seen[name] = index
        if config is not None:
            configs.append(config)
    if problems:
        raise SourcesFileError(problems)
    for config in configs:
        if not config.robots:
            log.warning("source %r: robots.txt is IGNORED (robots: false in %s); make sure the site allows it",
                        config.name, path)
    return configs


def _parse_entry(entry: Any, index: int, path: Path) -> tuple[SourceConfig | None, str, list[tuple[str, str]]]:
    """(the config or None, how the entry is named in messages, its (key, problem)s)."""
    where = f"source #{index}"
    if not isinstance(entry, dict):
        return None, where, [("entry", "expected a mapping with at least 'name' and 'kind'")]
    found: list[tuple[str, str]] = []
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        found.append(("name", "missing (every source needs a unique name)"))
    elif not _NAME_RE.fullmatch(name):
        found.append(("name", f"{name!r} may only contain letters, digits, '.', '_' and '-'"))
    else:
        where = f"source {name!r}"

    values: dict[str, Any] = {}
    unset: set[str] = set()
    for key, value in entry.items():
        if value is None:
            continue   # written but empty: the same as not written
        try:
            values[str(key)] = _expand(value, str(key))
        except KeyError as exc:
            variable, at = exc.args[0]
            unset.add(str(key))
            found.append((at, f"environment variable {variable} is not set (write ${{{variable}:-default}} "
                              "for a default)"))
    values["name"] = name if isinstance(name, str) else f"#{index}"
    try:
        config: SourceConfig | None = ENTRY.validate_python(values, context={"base_dir": path.parent})
    except ValidationError as exc:
        config = None
        kind = values.get("kind")
        for error in exc.errors():
            key, text = _describe(error, kind)
            if key.split(".")[0] not in unset and key != "name":
                found.append((key, text))
    if config is not None and not found:
        found.extend(config.problems())
    return (config if not found else None), where, found


def _describe(error: Any, kind: Any) -> tuple[str, str]:
    """A pydantic error as (key, problem) in the sources file's words."""
    kinds = ", ".join(KINDS)
    kind_type = error["type"]
    context = error.get("ctx") or {}
    loc = [str(part) for part in error["loc"][1:]]   # loc[0] is the kind's tag
    key = str(context.get("key") or ".".join(loc) or "entry")
    if kind_type == "union_tag_not_found":
        return "kind", f"missing (one of: {kinds})"
    if kind_type == "union_tag_invalid":
        return "kind", f"unknown kind {context.get('tag')!r} (one of: {kinds})"
    if kind_type == "jobpipe":
        return key, str(context["problem"])
    if kind_type == "missing":
        return key, f"missing (required for kind {kind!r})"
    if kind_type == "extra_forbidden":
        allowed = sorted(set(KINDS[str(kind)].config.model_fields) - {"name", "kind"})
        return key, f"unknown option for kind {kind!r} (allowed: {', '.join(allowed)})"
    return key, str(error["msg"])


def _expand(value: Any, key: str) -> Any:
    """``value`` with environment variables expanded; KeyError((variable, key)) when one is unset."""
    if isinstance(value, str):
        try:
            return expand_env(value)
        except KeyError as exc:
            raise KeyError((exc.args[0], key)) from None
    if isinstance(value, dict):
        return {k: _expand(v, f"{key}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, key) for v in value]
    return value


"""The sources file: what to fetch, written by users, checked before anything runs.

Every mistake is reported as ``SourcesFileError`` with the file, the source and the key,
because the person reading it is editing YAML, not Python.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import soupsieve
import yaml

from jobpipe.sources.options import COMMON, KIND_OPTIONS, POSTING_FIELD_NAMES, Option

log = logging.getLogger("jobpipe.sources")

_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_FILE_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
# A larger page would be refused (Workday answers 400) or silently cut short (Eightfold),
# which paging without a total would take for the last page.
_LARGEST_PAGE = {"workday": 20, "eightfold": 10}


class SourcesFileError(ValueError):
    """The sources file cannot be used as written."""


@dataclass(frozen=True)
class SourceConfig:
    """One validated entry of the sources file; ``options`` holds the kind's options with defaults."""

    name: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)
    enabled: bool = True
    rate_limit: float = 1.0
    robots: bool = True

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the fetch would extract could change (kind or options)."""
        text = json.dumps({"kind": self.kind, "options": self.options}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def expand_env(value: str) -> str:
    """``${VAR}`` and ``${VAR:-default}``; a missing variable without default is an error."""
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        current = os.environ.get(name)
        if current not in (None, ""):
            return current  # type: ignore[return-value]
        if default is not None:
            return default
        raise KeyError(name)
    return _ENV_RE.sub(replace, value)


def load_sources(path: str | os.PathLike[str]) -> list[SourceConfig]:
    """Read and validate a sources file (every entry, enabled or not)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SourcesFileError(f"{path}: cannot read the sources file ({exc.strerror or exc})") from exc
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
    configs: list[SourceConfig] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries, start=1):
        config = _parse_entry(entry, index, path)
        if config.name in seen:
            raise SourcesFileError(f"{path}: source {config.name!r}: name: duplicate name "
                                   f"(also used by source #{seen[config.name]})")
        seen[config.name] = index
        configs.append(config)
    return configs


def _parse_entry(entry: Any, index: int, path: Path) -> SourceConfig:
    where = f"{path}: source #{index}"
    if not isinstance(entry, dict):
        raise SourcesFileError(f"{where}: expected a mapping with at least 'name' and 'kind'")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SourcesFileError(f"{where}: name: missing (every source needs a unique name)")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", name):
        raise SourcesFileError(f"{where}: name: {name!r} may only contain letters, digits, '.', '_' and '-'")
    where = f"{path}: source {name!r}"

    def fail(key: str, problem: str) -> SourcesFileError:
        return SourcesFileError(f"{where}: {key}: {problem}")

    kind = entry.get("kind")
    if kind is None:
        raise fail("kind", f"missing (one of: {', '.join(KIND_OPTIONS)})")
    if kind not in KIND_OPTIONS:
        raise fail("kind", f"unknown kind {kind!r} (one of: {', '.join(KIND_OPTIONS)})")
    spec = KIND_OPTIONS[kind]
    allowed = {"name", "kind", *COMMON, *spec}
    for key in entry:
        if key not in allowed:
            raise fail(str(key), f"unknown option for kind {kind!r} (allowed: {', '.join(sorted(set(allowed) - {'name', 'kind'}))})")

    values: dict[str, Any] = {}
    for key, option in {**COMMON, **spec}.items():
        if key not in entry or entry[key] is None:
            if option.required:
                raise fail(key, f"missing (required for kind {kind!r})")
            values[key] = option.default
            continue
        values[key] = _check(option, _expand(entry[key], fail, key), fail, key, path.parent)

    options = {k: v for k, v in values.items() if k not in COMMON}
    _check_kind(kind, options, fail)
    if values["rate_limit"] <= 0:
        raise fail("rate_limit", "must be a positive number of requests per second")
    if not values["robots"]:
        log.warning("source %r: robots.txt is IGNORED (robots: false in %s); make sure the site allows it",
                    name, path)
    return SourceConfig(name=name, kind=kind, options=options, enabled=values["enabled"],
                        rate_limit=float(values["rate_limit"]), robots=values["robots"])


def _expand(value: Any, fail: Any, key: str) -> Any:
    try:
        if isinstance(value, str):
            return expand_env(value)
        if isinstance(value, dict):
            return {k: _expand(v, fail, f"{key}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [_expand(v, fail, key) for v in value]
    except KeyError as exc:
        raise fail(key, f"environment variable {exc.args[0]} is not set (write ${{{exc.args[0]}:-default}} "
                        "for a default)") from None
    return value


def _check(option: Option, value: Any, fail: Any, key: str, base_dir: Path) -> Any:
    kind = option.type
    if kind in ("str", "url", "regex", "selector", "choice", "path", "encoding") and not isinstance(value, str):
        raise fail(key, f"expected a string, got {type(value).__name__}")
    if kind == "str":
        if not value.strip():
            raise fail(key, "must not be empty")
        return value
    if kind == "url":
        if not re.match(r"^https?://[^/\s]+", value):
            raise fail(key, f"{value!r} is not an http(s) URL")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise fail(key, f"expected a positive whole number, got {value!r}")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise fail(key, f"expected a number, got {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise fail(key, f"expected true or false, got {value!r}")
        return value
    if kind == "choice":
        if value not in option.choices:
            raise fail(key, f"{value!r} is not one of: {', '.join(option.choices)}")
        return value
    if kind == "regex":
        try:
            re.compile(value)
        except re.error as exc:
            raise fail(key, f"invalid regular expression {value!r}: {exc}") from None
        return value
    if kind == "selector":
        return _selector(value, fail, key)
    if kind == "encoding":
        try:
            codecs.lookup(value)
        except LookupError:
            raise fail(key, f"unknown encoding {value!r}") from None
        return value
    if kind == "path":
        resolved = Path(value).expanduser()
        if not resolved.is_absolute():
            resolved = (base_dir / resolved).resolve()
        try:
            with open(resolved, "rb") as handle:
                handle.read(1)
        except OSError as exc:
            raise fail(key, f"cannot read {str(resolved)!r} ({exc.strerror or exc})") from None
        return str(resolved)
    if kind == "selectors":
        if not isinstance(value, dict) or not value:
            raise fail(key, "expected a mapping of field name -> CSS selector")
        fields: dict[str, dict[str, Any]] = {}
        for field_name, spec in value.items():
            sub = f"{key}.{field_name}"
            if isinstance(spec, str):
                spec = {"selector": spec}
            if not isinstance(spec, dict) or "selector" not in spec:
                raise fail(sub, "expected a CSS selector, or {selector: ..., attr: ..., html: true|false}")
            extra = set(spec) - {"selector", "attr", "html", "all"}
            if extra:
                raise fail(sub, f"unknown key {sorted(extra)[0]!r} (allowed: selector, attr, html, all)")
            fields[str(field_name)] = {
                "selector": _selector(spec["selector"], fail, sub),
                "attr": spec.get("attr"),
                "html": bool(spec.get("html", field_name == "description")),
                "all": bool(spec.get("all", field_name in ("location", "locations"))),
            }
        return fields
    if kind == "columns":
        if not isinstance(value, dict) or not value:
            raise fail(key, "expected a mapping of posting field -> column name")
        for target, column in value.items():
            if target not in POSTING_FIELD_NAMES:
                raise fail(f"{key}.{target}", f"unknown posting field (one of: {', '.join(POSTING_FIELD_NAMES)})")
            if not isinstance(column, str) or not column:
                raise fail(f"{key}.{target}", "expected a column name")
        return dict(value)
    raise AssertionError(f"unhandled option type {kind}")  # pragma: no cover


def _selector(value: Any, fail: Any, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise fail(key, "expected a CSS selector")
    try:
        soupsieve.compile(value)
    except Exception as exc:  # soupsieve raises SelectorSyntaxError (a ValueError) and others
        first_line = str(exc).splitlines()[0]
        raise fail(key, f"invalid CSS selector {value!r}: {first_line}") from None
    return value


def _check_kind(kind: str, options: dict[str, Any], fail: Any) -> None:
    """Checks that involve several options of one kind."""
    if kind == "file":
        if options["format"] is None:
            suffix = Path(options["path"]).suffix.lower()
            if suffix not in _FILE_FORMATS:
                raise fail("format", f"missing and cannot be guessed from {Path(options['path']).name!r} "
                                     "(write format: jsonl or format: csv)")
            options["format"] = _FILE_FORMATS[suffix]
        if options["fields"] is not None and "external_id" not in options["fields"]:
            raise fail("fields.external_id", "missing: name the column that identifies a posting")
    if kind == "html" and "title" not in options["fields"]:
        raise fail("fields.title", "missing: a detail page needs at least a title selector")
    largest = _LARGEST_PAGE.get(kind)
    if largest is not None and options["page_size"] > largest:
        raise fail("page_size", f"at most {largest} for kind {kind!r} (the API sends no more per request)")
    if "base_url" in options and options["base_url"]:
        ident = next((k for k in ("board", "company", "account") if k in options), None)
        if "{company}" in options["base_url"] and ident:
            options["base_url"] = options["base_url"].replace("{company}", options[ident])
        options["base_url"] = options["base_url"].rstrip("/")

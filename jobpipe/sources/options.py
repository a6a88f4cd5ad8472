"""What a source entry is: the base pydantic model every kind's options extend, and the
option types they are declared with.

Each kind declares its options once, as a ``Config`` model in its own module
(``jobpipe/sources/kinds/<kind>.py``); the sources file is validated against the union of
those models, discriminated by ``kind``, and kinds read their options as typed attributes.
Each option type raises one message a person editing YAML can act on ("expected a positive
whole number, got 0"), never pydantic's generic wording.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from pathlib import Path
from typing import Annotated, Any, ClassVar

import soupsieve
from pydantic import BaseModel, ConfigDict, PlainValidator, ValidationInfo, model_validator
from pydantic_core import PydanticCustomError

#: Field names a ``file`` mapping or ``html`` selector may target (others land in ``extra``).
POSTING_FIELD_NAMES: tuple[str, ...] = (
    "external_id", "title", "company", "location", "locations", "remote_hint", "salary", "salary_text",
    "employment_type", "description", "url", "posted_at", "valid_through", "department", "seniority",
    "experience_text", "degree_text",
)

#: Keys every source has; the rest of an entry is its kind's options.
COMMON_KEYS: tuple[str, ...] = ("name", "kind", "enabled", "rate_limit", "robots", "close_guard_share",
                                 "freshness_hours")


def problem(message: str, key: str | None = None) -> PydanticCustomError:
    """The one error type of the sources file: ``message`` verbatim, ``key`` when the problem is
    deeper than the option (``fields.title``) or involves several options."""
    context: dict[str, Any] = {"problem": message}
    if key:
        context["key"] = key
    return PydanticCustomError("jobpipe", "{problem}", context)


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise problem(f"expected a string, got {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    if not _string(value).strip():
        raise problem("must not be empty")
    return value


def _url(value: Any) -> str:
    if not re.match(r"^https?://[^/\s]+", _string(value)):
        raise problem(f"{value!r} is not an http(s) URL")
    return value


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise problem(f"expected a positive whole number, got {value!r}")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise problem(f"expected a number, got {value!r}")
    if value <= 0:
        raise problem("must be a positive number of requests per second")
    return float(value)


def _share(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise problem(f"expected a share of the open postings above 0 and at most 1 (e.g. 0.5), got {value!r}")
    return float(value)


def _hours(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise problem(f"expected a positive number of hours, got {value!r}")
    return float(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise problem(f"expected true or false, got {value!r}")
    return value


def _regex(value: Any) -> str:
    try:
        re.compile(_string(value))
    except re.error as exc:
        raise problem(f"invalid regular expression {value!r}: {exc}") from None
    return value


def check_selector(value: Any, key: str | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise problem("expected a CSS selector", key)
    try:
        soupsieve.compile(value)
    except Exception as exc:  # soupsieve raises SelectorSyntaxError (a ValueError) and others
        first_line = str(exc).splitlines()[0]
        raise problem(f"invalid CSS selector {value!r}: {first_line}", key) from None
    return value


def _encoding(value: Any) -> str:
    try:
        codecs.lookup(_string(value))
    except LookupError:
        raise problem(f"unknown encoding {value!r}") from None
    return value


def _readable_path(value: Any, info: ValidationInfo) -> str:
    resolved = Path(_string(value)).expanduser()
    if not resolved.is_absolute():
        base_dir = (info.context or {}).get("base_dir") or Path.cwd()
        resolved = (Path(base_dir) / resolved).resolve()
    try:
        with open(resolved, "rb") as handle:
            handle.read(1)
    except OSError as exc:
        raise problem(f"cannot read {str(resolved)!r} ({exc.strerror or exc})") from None
    return str(resolved)


def choice(*choices: str) -> PlainValidator:
    def check(value: Any) -> str:
        if _string(value) not in choices:
            raise problem(f"{value!r} is not one of: {', '.join(choices)}")
        return value
    return PlainValidator(check)


def at_most(largest: int, kind: str) -> PlainValidator:
    """A page size the API caps: a larger one would be refused (Workday answers 400) or silently
    cut short (Eightfold), which paging without a total would take for the last page."""
    def check(value: Any) -> int:
        if _count(value) > largest:
            raise problem(f"at most {largest} for kind {kind!r} (the API sends no more per request)")
        return value
    return PlainValidator(check)


Text = Annotated[str, PlainValidator(_text)]
Url = Annotated[str, PlainValidator(_url)]
Count = Annotated[int, PlainValidator(_count)]
Rate = Annotated[float, PlainValidator(_number)]
Flag = Annotated[bool, PlainValidator(_flag)]
Share = Annotated[float, PlainValidator(_share)]
Hours = Annotated[float, PlainValidator(_hours)]
Regex = Annotated[str, PlainValidator(_regex)]
Selector = Annotated[str, PlainValidator(check_selector)]
Encoding = Annotated[str, PlainValidator(_encoding)]
ReadablePath = Annotated[str, PlainValidator(_readable_path)]


class SourceConfig(BaseModel):
    """One validated entry of the sources file. Kinds subclass it with their options."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: one line per option for ``docs/sources.md``-style help; kinds may fill it
    help: ClassVar[dict[str, str]] = {}

    name: str
    kind: str
    enabled: Flag = True
    rate_limit: Rate = 1.0
    robots: Flag = True
    #: the close guard of this source (None: JOBPIPE_CLOSE_GUARD_SHARE): the largest share of its
    #: open postings one listing may close; 1 lets any listing close everything it no longer lists
    close_guard_share: Share | None = None
    #: hours after its last successful fetch that the source counts as stale (None: JOBPIPE_FRESHNESS_HOURS)
    freshness_hours: Hours | None = None

    @property
    def options(self) -> dict[str, Any]:
        """The kind's options (defaults filled in), as plain data."""
        return {key: value for key, value in self.model_dump().items() if key not in COMMON_KEYS}

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the fetch would extract could change (kind or options)."""
        text = json.dumps({"kind": self.kind, "options": self.options}, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def problems(self) -> list[tuple[str, str]]:
        """(key, problem) of checks that need more than the entry itself (a file's columns)."""
        return []

    def _resolve(self, **values: Any) -> None:
        """Set derived option values during validation (the model is frozen afterwards)."""
        for key, value in values.items():
            object.__setattr__(self, key, value)


class ApiConfig(SourceConfig):
    """A job-board API: ``base_url`` replaces the public host (mirror, proxy, test server);
    ``company_name`` is recorded when the API's postings do not name the employer."""

    #: the option naming the employer on the board, substituted for ``{company}`` in ``base_url``
    ident: ClassVar[str | None] = None

    base_url: Url
    company_name: Text | None = None

    @model_validator(mode="after")
    def _host(self) -> ApiConfig:
        base_url = self.base_url
        if self.ident and "{company}" in base_url:
            base_url = base_url.replace("{company}", getattr(self, self.ident))
        self._resolve(base_url=base_url.rstrip("/"))
        return self

"""Every source kind: how to fetch it and how to read its stored payloads.

Adding a kind = one module with ``fetch(session)`` and ``extract(payload)``, one entry here
and its options in ``jobpipe/sources/options.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.kinds import (ashby, comeet, eightfold, file, greenhouse, html, jsonld, lever, personio,
                                   recruitee, smartrecruiters, teamtailor, workable, workday)


@dataclass(frozen=True)
class Kind:
    name: str
    fetch: Callable[[Any], Iterator[RawPosting]]
    extract: Callable[[dict[str, Any]], PostingFields]


KINDS: dict[str, Kind] = {
    module.__name__.rsplit(".", 1)[-1]: Kind(module.__name__.rsplit(".", 1)[-1], module.fetch, module.extract)
    for module in (greenhouse, lever, ashby, workable, smartrecruiters, recruitee, personio, teamtailor,
                   workday, comeet, eightfold, jsonld, html, file)
}

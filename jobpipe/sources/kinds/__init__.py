"""Every source kind: its options, how to fetch it and how to read its stored payloads.

Adding a kind = one module with a ``Config`` model (its options, a subclass of
``SourceConfig`` with ``kind: Literal["<kind>"]``), ``fetch(session)`` and
``extract(payload)``, plus one entry in the tuple below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Union, cast

from pydantic import Field, TypeAdapter

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.kinds import (
    ashby,
    bilibili,
    comeet,
    eightfold,
    file,
    greenhouse,
    html,
    jsonld,
    lagou,
    lever,
    personio,
    recruitee,
    smartrecruiters,
    teamtailor,
    tencent,
    workable,
    workday,
    zhaopin,
)
from jobpipe.sources.options import SourceConfig

if TYPE_CHECKING:
    from typing_extensions import TypeForm


@dataclass(frozen=True)
class Kind:
    name: str
    config: type[SourceConfig]
    fetch: Callable[[Any], Iterator[RawPosting]]
    extract: Callable[[dict[str, Any]], PostingFields]


_MODULES = (greenhouse, lever, ashby, workable, smartrecruiters, recruitee, personio, teamtailor,
            workday, comeet, eightfold, tencent, bilibili, zhaopin, lagou, jsonld, html, file)

KINDS: dict[str, Kind] = {
    module.__name__.rsplit(".", 1)[-1]: Kind(module.__name__.rsplit(".", 1)[-1], module.Config, module.fetch,
                                             module.extract)
    for module in _MODULES
}

#: One sources-file entry: the kind's model, chosen by ``kind``.
# Union[...] over a tuple built at run time: `X | Y` cannot spread it (hence noqa UP007).
SourceEntry = Annotated[Union[tuple(kind.config for kind in KINDS.values())], Field(discriminator="kind")]  # type: ignore[valid-type]  # noqa: UP007
# Built at run time from KINDS, so mypy cannot read it as a type: it is a union of SourceConfig models.
ENTRY: TypeAdapter[SourceConfig] = TypeAdapter(cast("TypeForm[SourceConfig]", SourceEntry))

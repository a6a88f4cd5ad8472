"""Materializing single assets on the session's real database, from a local file-drop source.

A file source needs no server and can be edited between "days", so each asset's behaviour
(what it stores, what it reports, which checks fail) is tested on its own, as Dagster's own
projects test theirs: ``materialize([...], selection=[asset])`` with the definitions' resources.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance, ExecuteInProcessResult, materialize

from jobpipe.orchestration.definitions import ASSETS
from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key
from jobpipe.orchestration.resources import EmbedderResource, build_resources
from jobpipe.pipeline.ingest import utc_today

SOURCE = "acme-file"


def posting(i: int, **changes: Any) -> dict[str, Any]:
    row = {
        "id": f"A-{i}",
        "title": f"Data Engineer {i}" if i % 2 else f"后端开发工程师 {i}",
        "company": "Acme" if i % 2 else "青禾智能",
        "location": "Berlin, Germany" if i % 2 else "北京",
        "salary": "€60,000 - €80,000 a year" if i % 2 else "25-40K·14薪",
        "employment_type": "Full-time",
        "description": f"Build pipelines with Python, SQL and PostgreSQL. Posting number {i}.",
        "url": f"https://acme.example/jobs/{i}",
    }
    row.update(changes)
    return row


@dataclass
class Board:
    """A file-drop source: ``write`` sets what tomorrow's fetch will list."""

    folder: Path

    @property
    def sources_file(self) -> Path:
        return self.folder / "sources.yaml"

    def write(self, rows: list[dict[str, Any]]) -> None:
        with open(self.folder / "postings.jsonl", "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")


@pytest.fixture
def board(tmp_path: Path) -> Board:
    board = Board(tmp_path)
    board.sources_file.write_text(
        f"sources:\n  - {{name: {SOURCE}, kind: file, path: postings.jsonl}}\n", encoding="utf-8")
    board.write([posting(i) for i in range(1, 11)])
    return board


@pytest.fixture
def instance() -> Iterator[DagsterInstance]:
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(SOURCES_PARTITION, [SOURCE])
        yield instance


Materialize = Callable[..., ExecuteInProcessResult]


@pytest.fixture
def run(db: Any, board: Board, instance: DagsterInstance) -> Materialize:
    """``run(asset, ..., day=None)``: materialize those assets (a partition of the source when
    they are partitioned) with the code location's resources, on the emptied session database."""

    def materialize_assets(*assets: Any, day: date | None = None, **resources: Any) -> ExecuteInProcessResult:
        bound = build_resources(sources_file=board.sources_file)
        # A fast deterministic model (the local default needs seconds to load).
        bound["embedder"] = EmbedderResource(kind="local", model="token-hash-64")
        bound.update(resources)
        partitioned = any(a.partitions_def is not None for a in assets)
        return materialize(
            ASSETS, selection=list(assets), resources=bound, instance=instance, raise_on_error=False,
            partition_key=partition_key(SOURCE, day or utc_today()) if partitioned else None,
        )

    return materialize_assets


def check(result: ExecuteInProcessResult, name: str) -> Any:
    """The evaluation of asset check ``name`` in ``result``."""
    found = [e for e in result.get_asset_check_evaluations() if e.check_name == name]
    assert len(found) == 1, [e.check_name for e in result.get_asset_check_evaluations()]
    return found[0]

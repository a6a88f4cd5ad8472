"""Building validated SourceConfigs in tests, the same way a sources file would."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jobpipe.sources import SourceConfig
from jobpipe.sources.config import parse_sources


def make_config(name: str, kind: str, base_dir: Path | None = None, **options: Any) -> SourceConfig:
    entry = {"name": name, "kind": kind, "rate_limit": 1000, **options}
    (config,) = parse_sources({"sources": [entry]}, (base_dir or Path.cwd()) / "sources.yaml")
    return config

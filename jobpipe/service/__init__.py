"""The agent query service: HTTP API (FastAPI) and MCP tools over the curated tables.

Entry points (imported lazily, inside the functions below: every submodule import such as
``jobpipe.service.settings`` runs this file first, and must not pull in FastAPI and the MCP SDK):
``create_app`` (jobpipe.service.api), ``serve`` (jobpipe.service.server),
``run_mcp`` / ``build_mcp_server`` (jobpipe.service.mcp_server).
"""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    from jobpipe.service.api import create_app as _create_app

    return _create_app(*args, **kwargs)


def serve(*args: Any, **kwargs: Any) -> None:
    from jobpipe.service.server import serve as _serve

    _serve(*args, **kwargs)


def run_mcp(*args: Any, **kwargs: Any) -> None:
    from jobpipe.service.mcp_server import run_mcp as _run_mcp

    _run_mcp(*args, **kwargs)


__all__ = ["create_app", "run_mcp", "serve"]

"""``jobpipe serve``: run the HTTP API under uvicorn."""

from __future__ import annotations

from typing import Any

import psycopg
import uvicorn

from jobpipe.db import ready_url
from jobpipe.service.api import create_app
from jobpipe.service.login import resolve_login
from jobpipe.service.settings import ServiceSettings, check_bind, service_settings


def serve(host: str = "127.0.0.1", port: int = 8000, *, token: str | None = None,
          database_url: str | None = None, embedder: Any = None, settings: ServiceSettings | None = None,
          migrate: bool = True, log_level: str = "info") -> None:
    """Serve the API until interrupted. Raises ServiceConfigError before binding when unsafe.

    A non-loopback ``host`` requires a token (argument or JOBPIPE_API_TOKEN). With
    ``migrate`` the schema is brought up to date first, with the pipeline's own login; the
    service itself then logs in as its own reader (jobpipe.service.login) and only reads. A
    login that could write stops the start here, before binding.
    """
    settings = settings or service_settings()
    token = token or settings.token
    check_bind(host, token)
    if database_url is None and settings.database_url is None and migrate:
        database_url = ready_url()
    pointed = database_url or settings.database_url
    database_url = _settled_login(pointed)
    app = create_app(settings, database_url=database_url, embedder=embedder, token=token, writer_source=pointed)
    uvicorn.run(app, host=host, port=port, log_level=log_level, proxy_headers=False, server_header=False)


def _settled_login(url: str | None) -> str | None:
    """The service's own login for ``url`` (ServiceConfigError if none is safe); ``url`` itself
    when the database cannot be reached yet (the service then starts degraded and retries)."""
    if url is None:
        return None
    try:
        return resolve_login(url)
    except psycopg.OperationalError:
        return url

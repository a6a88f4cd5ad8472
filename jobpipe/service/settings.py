"""The query service's own settings, read from the environment when asked for."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

from jobpipe.service import limits


class ServiceConfigError(RuntimeError):
    """The service refuses to start with this configuration (the message says why)."""


def _env(name: str) -> str | None:
    value = os.environ.get(name)
    return value if value not in (None, "") else None


@dataclass(frozen=True)
class ServiceSettings:
    #: Bearer token clients must send (``Authorization: Bearer <token>``); None = no auth.
    token: str | None = None
    #: The service's own login (a reader: see jobpipe.service.login); None = the pipeline's
    #: database, through the service login jobpipe sets up on its embedded server.
    database_url: str | None = None
    statement_timeout_ms: int = limits.DEFAULT_STATEMENT_TIMEOUT_MS
    pool_max_size: int = 8
    #: Seconds a request waits for a pooled connection before answering 503.
    pool_timeout_s: float = 5.0
    #: The login ``POST``/``DELETE /candidates`` write with (it may write candidate rows only: see
    #: jobpipe.db.roles); None = the one jobpipe sets up on its embedded server.
    writer_database_url: str | None = None
    #: Statement timeout of those writes (a new candidate is embedded and matched in the request).
    write_timeout_ms: int = 30_000


def service_settings() -> ServiceSettings:
    if _env("JOBPIPE_SERVICE_ROLE"):
        import logging

        logging.getLogger(__name__).warning(
            "JOBPIPE_SERVICE_ROLE is no longer used: the service logs in as its own role "
            "(JOBPIPE_SERVICE_DATABASE_URL, or `jobpipe db service-role`) instead of switching roles")
    return ServiceSettings(
        token=_env("JOBPIPE_API_TOKEN"),
        database_url=_env("JOBPIPE_SERVICE_DATABASE_URL"),
        statement_timeout_ms=int(_env("JOBPIPE_STATEMENT_TIMEOUT_MS") or limits.DEFAULT_STATEMENT_TIMEOUT_MS),
        pool_max_size=int(_env("JOBPIPE_SERVICE_POOL_SIZE") or 8),
        writer_database_url=_env("JOBPIPE_SERVICE_WRITER_DATABASE_URL"),
    )


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    host = host.strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a hostname: it may resolve to anything


def check_bind(host: str, token: str | None) -> None:
    """Refuse to expose the service beyond this machine without a token."""
    if not is_loopback(host) and not token:
        raise ServiceConfigError(
            f"refusing to listen on {host!r} without a token: anyone who can reach that address could "
            "query the service. Set JOBPIPE_API_TOKEN (clients then send 'Authorization: Bearer <token>') "
            "or bind to 127.0.0.1."
        )

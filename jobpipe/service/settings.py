"""The query service's own settings (a plain value; :func:`service_settings` takes them from
:class:`jobpipe.config.Settings`, where every environment variable is declared)."""

from __future__ import annotations

import ipaddress
import logging
import os
from dataclasses import dataclass

from jobpipe.config import get_settings
from jobpipe.service import limits


class ServiceConfigError(RuntimeError):
    """The service refuses to start with this configuration (the message says why)."""


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
    if os.environ.get("JOBPIPE_SERVICE_ROLE"):   # retired: say so rather than silently ignore it
        logging.getLogger(__name__).warning(
            "JOBPIPE_SERVICE_ROLE is no longer used: the service logs in as its own role "
            "(JOBPIPE_SERVICE_DATABASE_URL, or `jobpipe db service-role`) instead of switching roles")
    s = get_settings()
    return ServiceSettings(token=s.api_token, database_url=s.service_database_url,
                           statement_timeout_ms=s.statement_timeout_ms, pool_max_size=s.service_pool_size,
                           writer_database_url=s.service_writer_database_url)


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

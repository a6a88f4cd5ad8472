"""Which login the service connects with: its own reader, never the pipeline's owner.

The service is pointed at a database URL (``JOBPIPE_SERVICE_DATABASE_URL``, or the pipeline's
own database when that is unset). If that URL already logs in as a plain reader -- no
superuser, no role memberships, owning nothing -- it is used as it is. On jobpipe's embedded
server, the owner's URL is swapped for the database's own service login, created on first
use (:func:`jobpipe.db.roles.ensure_service_login`). Anywhere else the service refuses to
start and says which step creates its login: creating roles on a server jobpipe does not
manage is the operator's decision.
"""

from __future__ import annotations

import psycopg

from jobpipe.db.roles import ServiceRoleError, ensure_service_login, unsafe_reasons, writer_role_name
from jobpipe.db.rows import one
from jobpipe.db.server import serves
from jobpipe.service.settings import ServiceConfigError


def resolve_login(url: str) -> str:
    """The URL the service connects with, given the URL it is pointed at (see the module docstring).

    Raises :class:`ServiceConfigError` when that login could write and jobpipe may not set up a
    reader itself; ``psycopg.OperationalError`` when the database cannot be reached.
    """
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        user = one(conn.execute("SELECT session_user"))[0]
        if one(conn.execute("SELECT pg_is_in_recovery()"))[0]:
            return url   # a hot standby: nothing can write there, whoever logs in
        reasons = unsafe_reasons(conn, user)
    if not reasons:
        return url

    if serves(url):
        try:
            return ensure_service_login(url).url
        except ServiceRoleError as exc:
            raise ServiceConfigError(str(exc)) from None
    raise ServiceConfigError(
        f"the query service will not log in as {user!r}: it {'; '.join(reasons)}, so one injected statement "
        "could change data. Create the service's own login once with `jobpipe db service-role` (run with the "
        "pipeline's login; it prints the URL), then set JOBPIPE_SERVICE_DATABASE_URL to that URL.")


def resolve_writer_login(url: str, *, given: bool) -> str:
    """The URL ``POST``/``DELETE /candidates`` write with: the candidate writer's own login.

    ``given``: ``url`` is ``JOBPIPE_SERVICE_WRITER_DATABASE_URL`` (used as it is once it proves
    a plain login); else ``url`` is the database the service was pointed at, and only on
    jobpipe's embedded server, logged in as the owner, does jobpipe set the writer up itself.
    Raises :class:`ServiceConfigError` naming the step otherwise (the endpoints answer 503).
    """
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        user = one(conn.execute("SELECT session_user"))[0]
        database = one(conn.execute("SELECT current_database()"))[0]
        reasons = unsafe_reasons(conn, user)
    if given:
        if reasons:
            raise ServiceConfigError(
                f"JOBPIPE_SERVICE_WRITER_DATABASE_URL logs in as {user!r}, which {'; '.join(reasons)}: candidate "
                "writes need the candidate writer's own login (`jobpipe db service-role --candidate-writer`)")
        return url

    if reasons and serves(url):
        try:
            return ensure_service_login(url, candidate_writer=True).url
        except ServiceRoleError as exc:
            raise ServiceConfigError(str(exc)) from None
    raise ServiceConfigError(
        "adding and deleting candidates through the service needs the candidate writer's own login: create it "
        f"once with `jobpipe db service-role --candidate-writer` (default name {writer_role_name(database)!r}) and "
        "set JOBPIPE_SERVICE_WRITER_DATABASE_URL to the URL it prints")

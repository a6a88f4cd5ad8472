"""The Dagster instance of one jobpipe deployment (CLI runs, ``jobpipe ui``, the daemon).

Its storage belongs to the jobpipe database it runs with: ``JOBPIPE_DAGSTER_DATABASE_URL``, or
a database named ``<jobpipe database>_dagster`` on the same server (see
:func:`jobpipe.db.dagster_database_url`). A run started by ``jobpipe run`` therefore shows up in
that deployment's UI and nowhere else; a test database gets its own instance.
"""

from __future__ import annotations

import os
import shutil

from dagster import DagsterInstance

from jobpipe.config import PROJECT_ROOT, Settings, get_settings
from jobpipe.db.connection import dagster_storage_url


def prepare_dagster_home(settings: Settings | None = None) -> str:
    """Create ``$JOBPIPE_HOME/dagster`` with our ``dagster.yaml`` and export the storage URL."""
    settings = settings or get_settings()
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    source = PROJECT_ROOT / "dagster.yaml"
    target = home / "dagster.yaml"
    if not target.exists() or target.read_bytes() != source.read_bytes():
        shutil.copyfile(source, target)
    os.environ["DAGSTER_HOME"] = str(home)
    os.environ["JOBPIPE_DAGSTER_STORAGE_URL"] = dagster_storage_url(settings)
    return str(home)


def get_instance():
    prepare_dagster_home()
    return DagsterInstance.get()

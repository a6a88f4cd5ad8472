"""The Dagster instance every jobpipe process shares (CLI runs, ``dagster dev``, the daemon).

Its storage is a ``dagster`` database on jobpipe's own PostgreSQL server, so a run started by
``jobpipe run`` shows up in the UI, and nothing else needs installing.
"""

from __future__ import annotations

import os
import shutil

from jobpipe.config import PROJECT_ROOT, Settings, get_settings


def prepare_dagster_home(settings: Settings | None = None) -> str:
    """Create ``$JOBPIPE_HOME/dagster`` with our ``dagster.yaml`` and export the storage URL."""
    from jobpipe.db.connection import dagster_storage_url

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
    from dagster import DagsterInstance

    prepare_dagster_home()
    return DagsterInstance.get()

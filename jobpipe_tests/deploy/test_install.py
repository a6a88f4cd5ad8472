"""The Dockerfile's build step, run here: deploy/install.sh into a clean virtual environment (16.3).

The same script the image build runs (test_files.py checks the Dockerfile calls it): a wheel of
this checkout with the Celery extra and every pinned dependency from the package index, then,
outside the source tree, the migrations found in the installed package, the local embedding
model loaded and used offline, the Dagster definitions validated with the Celery executor, and
``pip check``. No container engine runs here; this is what the build would do inside one.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jobpipe.config import PROJECT_ROOT

pytestmark = pytest.mark.slow


def test_the_image_install_steps_work_in_a_clean_venv(tmp_path):
    venv = tmp_path / "venv"
    proc = subprocess.run(["sh", str(PROJECT_ROOT / "deploy" / "install.sh"), str(venv), str(PROJECT_ROOT)],
                          capture_output=True, text=True, timeout=1800,
                          # a clean environment, but pip's download cache (HOME) is kept: CI installs
                          # the same pinned wheels twice (make install, then here)
                          env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable, "HOME": os.environ.get("HOME", "/root")})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert "jobpipe installed:" in proc.stdout
    # nothing of the checkout is imported: the installed copy is what runs
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import jobpipe, jobpipe.config as c; "
                            "print(jobpipe.__file__); print(c.PROJECT_ROOT)"], capture_output=True, text=True,
                           cwd=tmp_path, check=True).stdout.split()
    assert str(venv) in where[0] and str(venv) in where[1]

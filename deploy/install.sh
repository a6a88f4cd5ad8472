#!/bin/sh
# Install jobpipe into a fresh virtual environment: the Dockerfile's build step, and what
# jobpipe_tests/deploy/test_install.py runs on this machine to prove the image builds.
#   deploy/install.sh VENV_DIR [SOURCE_DIR]
# Builds a wheel of SOURCE_DIR (default: the repository) with the Celery extra, installs it
# with its pinned dependencies, then checks that the offline embedding model loads and embeds,
# that the migrations ship with the package, and that the Dagster definitions load.
set -eu
VENV="$1"
SRC="${2:-$(cd "$(dirname "$0")/.." && pwd)}"
PYTHON="${PYTHON:-python3}"

"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
WHEELS="$(mktemp -d)"
"$VENV/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$WHEELS" "$SRC"
"$VENV/bin/python" -m pip install --quiet "$(ls "$WHEELS"/jobpipe-*.whl)[celery]"
rm -rf "$WHEELS"

# Smoke checks, run from outside the source tree so nothing is read from it.
cd /
"$VENV/bin/python" - <<'PY'
from jobpipe.db.migrate import load_migrations
from jobpipe.embedding import get_embedder

migrations = load_migrations()
assert len(migrations) >= 12, f"only {len(migrations)} migrations shipped"
embedder = get_embedder()            # the local model, from the installed package, no network
vectors = embedder.embed_documents(["数据工程师 data engineer"])
assert vectors.shape == (1, embedder.dims), vectors.shape
print(f"jobpipe installed: {len(migrations)} migrations, local model {embedder.model} ({embedder.dims} dims)")
PY
JOBPIPE_EXECUTOR=celery JOBPIPE_CELERY_BROKER_URL=redis://localhost:6379/0 \
    "$VENV/bin/dagster" definitions validate -m jobpipe.orchestration.definitions -a defs >/dev/null
"$VENV/bin/python" -m pip check

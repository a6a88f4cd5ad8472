# Two commands on a fresh machine (Python 3.11 + make): `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install whenever pyproject.toml changes.
STAMP  := $(VENV)/.installed

.PHONY: run test lint test-fast test-deploy system-packages bench-scale ui serve mcp db-stop bench clean install schema

install: $(STAMP)

# Debian packages the tests need, one list for one apt step: redis-server (the Celery broker of the
# topology test); chromium for the browser tests (Playwright drives Debian's chromium: its own browser
# download cannot work offline); fonts-noto-cjk so Chinese text renders in pages and screenshots.
APT_PACKAGES := redis-server chromium fonts-noto-cjk

## system-packages: install APT_PACKAGES that are missing (needs root; otherwise says so and the tests that need them skip)
# Its output goes to stderr, like the installer's, so `make mcp`'s stdout stays the protocol stream.
system-packages:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian packages:$$missing" >&2; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } >&2 \
	    || echo "could not install$$missing: the tests that need them will skip" >&2; \
	else echo "not root or no apt-get: install$$missing yourself (apt-get install$$missing); the tests that need them skip" >&2; fi

# Installer output goes to stderr, so a target whose stdout is a protocol stream (`make mcp`)
# stays clean even on the run that installs.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2
	@$(BIN)/python -m pip install --quiet -e '.[test,celery]' >&2
	@touch $(STAMP)

## run: materialize the whole graph once on the bundled demo, print the summary and a sample search
run: $(STAMP)
	$(BIN)/jobpipe run
	$(BIN)/jobpipe search "大模型 算法 实习" --top-k 5

## test: the whole suite against a real embedded PostgreSQL + pgvector
test: $(STAMP) system-packages
	$(BIN)/python -m pytest

## lint: ruff (the rules in pyproject.toml) over the package, tests and benches; mypy over the package
## (both run whatever the other says, so one CI log shows every finding; either failing fails)
lint: $(STAMP)
	@status=0; \
	$(BIN)/ruff check jobpipe jobpipe_tests bench || status=$$?; \
	$(BIN)/mypy jobpipe || status=$$?; \
	exit $$status

## test-deploy: the deployment tests alone (topology, external PostgreSQL, deploy/ files, image install)
test-deploy: $(STAMP) system-packages
	$(BIN)/python -m pytest jobpipe_tests/deploy

## test-fast: the fast lane, without the whole-graph, topology and browser tests (marked slow)
test-fast: $(STAMP) system-packages
	$(BIN)/python -m pytest -m "not slow"

## ui: the Dagster UI on 127.0.0.1:3000 against the same instance
ui: $(STAMP)
	$(BIN)/jobpipe ui

## serve: the agent query service (HTTP) on 127.0.0.1:8000
serve: $(STAMP)
	$(BIN)/jobpipe serve

## mcp: the MCP server on stdio (stdout carries only the protocol: no echoed command, installs on stderr)
mcp:
	@$(MAKE) --no-print-directory -s install >&2
	@$(BIN)/jobpipe mcp

## schema: regenerate sql/schema.sql (the current schema) from a freshly migrated database
schema: $(STAMP)
	$(BIN)/python -m jobpipe.db.schema --write

db-stop: $(STAMP)
	$(BIN)/jobpipe db stop

bench: $(STAMP)
	for f in bench/bench_*.py; do [ $$f = bench/bench_scale.py ] || $(BIN)/python $$f || exit 1; done

## bench-scale: 1,000,000 synthetic postings through store, index and search (an hour or more on 2 cores)
bench-scale: $(STAMP)
	$(BIN)/python bench/bench_scale.py

clean:
	-$(BIN)/jobpipe db stop
	rm -rf $(VENV) .jobpipe

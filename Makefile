# Two commands on a fresh machine (Python 3.11 + make): `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Re-install whenever pyproject.toml changes.
STAMP  := $(VENV)/.installed

.PHONY: run test test-fast ui serve mcp db-stop bench clean install schema

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## run: materialize the whole graph once on the bundled demo, print the summary and a sample search
run: $(STAMP)
	$(BIN)/jobpipe run
	$(BIN)/jobpipe search "大模型 算法 实习" --top-k 5

## test: the whole suite against a real embedded PostgreSQL + pgvector
test: $(STAMP)
	$(BIN)/python -m pytest

## test-fast: the fast lane, without the whole-graph, topology and browser tests (marked slow)
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

## ui: the Dagster UI on 127.0.0.1:3000 against the same instance
ui: $(STAMP)
	$(BIN)/jobpipe ui

## serve: the agent query service (HTTP) on 127.0.0.1:8000
serve: $(STAMP)
	$(BIN)/jobpipe serve

mcp: $(STAMP)
	$(BIN)/jobpipe mcp

## schema: regenerate sql/schema.sql (the current schema) from a freshly migrated database
schema: $(STAMP)
	$(BIN)/python -m jobpipe.db.schema --write

db-stop: $(STAMP)
	$(BIN)/jobpipe db stop

bench: $(STAMP)
	for f in bench/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	-$(BIN)/jobpipe db stop
	rm -rf $(VENV) .jobpipe

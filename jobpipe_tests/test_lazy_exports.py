"""The packages that export names lazily (PEP 562) export exactly what they declare, and the CLI
starts without the heavy stacks those packages would otherwise import."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys

import pytest

LAZY_PACKAGES = ["jobpipe", "jobpipe.demo", "jobpipe.normalize", "jobpipe.search"]


def _type_checking_names(module) -> set[str]:
    """The names the package imports under ``if TYPE_CHECKING:`` (what type checkers see)."""
    tree = ast.parse(inspect.getsource(module))
    names: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING":
            for node in stmt.body:
                if isinstance(node, ast.ImportFrom):
                    names.update(alias.asname or alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_a_lazy_package_declares_each_name_once_for_type_checkers_and_run_time(name):
    package = importlib.import_module(name)
    lazy = package._LAZY
    assert _type_checking_names(package) == set(lazy)
    assert set(lazy) <= set(package.__all__)
    for export in package.__all__:   # every exported name resolves, to the object its module defines
        value = getattr(package, export)
        if export in lazy:
            assert value is getattr(importlib.import_module(lazy[export]), export)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        package.not_a_name  # noqa: B018


def test_the_cli_parser_is_built_without_the_pipeline_search_or_service_stacks():
    # The command line derives its filter flags from jobpipe.search.types; the packages around it
    # must not drag in pandas, the store, the sources layer or Dagster for `jobpipe --help`.
    heavy = ["pandas", "pandera", "dagster", "psycopg", "httpx", "fastapi", "jobpipe.search.core",
             "jobpipe.normalize.store", "jobpipe.sources"]
    code = ("import sys, jobpipe.cli; jobpipe.cli.build_parser(); "
            f"print(' '.join(m for m in {heavy!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == []

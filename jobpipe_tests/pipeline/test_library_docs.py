"""The examples of docs/library.md run as written, and print what the page says they print."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def examples(doc: Path, section: str) -> list[str]:
    """The ```python blocks of one section of ``doc``."""
    text = doc.read_text(encoding="utf-8").split(section, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def run_in_order(blocks: list[str], where: Path) -> None:
    """Run the blocks in one namespace; each must print exactly its ``# -> `` lines."""
    namespace: dict[str, object] = {}
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(where), "exec"), namespace)   # noqa: S102 (our own documentation)
        expected = [line[len("# -> "):] for line in block.splitlines() if line.startswith("# -> ")]
        assert out.getvalue().splitlines() == expected, block


def test_the_library_examples_run_and_print_what_they_say(db):
    blocks = examples(ROOT / "docs" / "library.md", "## Records you fetched yourself")
    assert len(blocks) == 3
    run_in_order(blocks, ROOT / "docs" / "library.md")


def test_the_readme_example_runs(db):
    blocks = examples(ROOT / "README.md", "## As a library")
    assert len(blocks) == 1
    run_in_order(blocks, ROOT / "README.md")

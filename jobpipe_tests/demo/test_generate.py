"""The committed demo files are exactly what the generator produces (deterministic seed)."""

from __future__ import annotations

from jobpipe.demo.compose import compose_all
from jobpipe.demo.generate import DEMO_DIR, generated_paths_on_disk, render_files


def test_committed_files_equal_a_fresh_generation():
    files = render_files()
    assert generated_paths_on_disk() == set(files), "stale or missing generated files: run python -m jobpipe.demo.generate"
    differing = [rel for rel, text in files.items() if (DEMO_DIR / rel).read_text(encoding="utf-8") != text]
    assert differing == [], "committed demo data differs from the generator: run python -m jobpipe.demo.generate"


def test_generation_is_deterministic():
    a, b = compose_all(), compose_all()
    assert [(o.title, o.ids, o.cities, o.duties) for o in a] == [(o.title, o.ids, o.cities, o.duties) for o in b]
    assert compose_all(seed=7)[0].duties != a[0].duties or compose_all(seed=7)[0].cities != a[0].cities


def test_generator_writes_a_complete_tree(tmp_path):
    from jobpipe.demo.generate import write

    n = write(tmp_path)
    assert n == len(render_files())
    assert (tmp_path / "sources.yaml").exists()
    assert len(list((tmp_path / "data" / "careers").rglob("*.html"))) > 100
    (tmp_path / "data" / "careers" / "stale.html").write_text("old")
    write(tmp_path)
    assert not (tmp_path / "data" / "careers" / "stale.html").exists()

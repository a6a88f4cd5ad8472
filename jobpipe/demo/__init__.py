"""The bundled demo: fictional employers' postings served over real HTTP from a local server.

``make run`` / ``jobpipe run`` start :class:`DemoServer`, export its address as
``JOBPIPE_DEMO_URL`` and run the pipeline on :data:`DEMO_SOURCES_FILE`, so the demo goes
through the same scrapers as real boards. Every posting and resume here was written for
jobpipe (see docs/demo.md); regenerate the data with ``python -m jobpipe.demo.generate``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jobpipe._lazy import lazy_exports

if TYPE_CHECKING:
    from jobpipe.demo.server import DemoServer

_HERE = Path(__file__).resolve().parent
DEMO_DATA_DIR = _HERE / "data"
#: The sources file of the demo (uses ``${JOBPIPE_DEMO_URL}``).
DEMO_SOURCES_FILE = _HERE / "sources.yaml"
#: Directory of plain-text resumes (``zh-*.txt``, ``en-*.txt``; first line is the name).
DEMO_RESUMES = DEMO_DATA_DIR / "resumes"
#: One row per published posting (source, external_id, title, language, cities, job type...).
DEMO_MANIFEST = DEMO_DATA_DIR / "manifest.json"
#: The environment variable the demo sources file expands to the server's base URL.
DEMO_URL_ENV = "JOBPIPE_DEMO_URL"

#: The sample search printed at the end of ``make run``: hits several LLM-algorithm internships.
DEMO_QUERY = "大模型 算法 实习"

#: A posting the end-to-end test can look for: every query word is in its title or description.
KNOWN_POSTING: dict[str, str] = {
    "source": "qinghe-gh",
    "external_id": "4995153002",
    "title": "高级大模型算法工程师（后训练）",
    "query": "高级大模型算法工程师 后训练",
}
#: An English counterpart, for cross-checking English search.
KNOWN_POSTING_EN: dict[str, str] = {
    "source": "orbitkite-gh",
    "external_id": "7739462002",
    "title": "Perception Engineer",
    "query": "perception engineer autonomous mobile robots",
}


def demo_resumes() -> list[dict[str, str]]:
    """The demo candidates as ``{id, name, lang, text}``, in file-name order."""
    out = []
    for path in sorted(DEMO_RESUMES.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        out.append({"id": path.stem, "name": text.splitlines()[0].strip(), "lang": path.stem[:2], "text": text})
    return out


def demo_manifest() -> dict[str, Any]:
    """The generated manifest: per-source posting counts and one summary row per posting."""
    return json.loads(DEMO_MANIFEST.read_text(encoding="utf-8"))


#: Imported lazily so ``python -m jobpipe.demo.server`` does not import the module twice.
_LAZY = {"DemoServer": "jobpipe.demo.server"}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "DEMO_DATA_DIR", "DEMO_MANIFEST", "DEMO_QUERY", "DEMO_RESUMES", "DEMO_SOURCES_FILE", "DEMO_URL_ENV",
    "KNOWN_POSTING", "KNOWN_POSTING_EN", "DemoServer", "demo_manifest", "demo_resumes",
]

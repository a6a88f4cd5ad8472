"""Skills named in a posting, as canonical names from the bilingual taxonomy (data/skills.yaml).

Matching is by tokens, not by one giant regex: Latin text is split into tokens the way
:mod:`jobpipe.text.tokenize` does (so "c++", "node.js", "ci/cd" survive) and every alias is
looked up as a token n-gram; Chinese aliases are found by scanning CJK runs. That keeps
normalization fast (thousands of postings per second) and makes word boundaries exact: "Go"
never matches inside "Google", and "go to" is not the Go language.

Short, ambiguous aliases are marked in the data: ``=Go`` is case-sensitive and refuses English
phrasal uses ("Go to", "Go ahead"); ``~R`` is case-sensitive and needs another skill nearby
("Python, R, SQL").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import ahocorasick_rs
import yaml

DATA_FILE = Path(__file__).resolve().parent / "data" / "skills.yaml"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_TOKEN = re.compile(r"\.?[a-z0-9][a-z0-9+#]*(?:[.\-][a-z0-9+#]+)*[+#]*", re.I)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
#: Words after "Go" that make it the English verb.
_GO_VERB_NEXT = frozenset(
    "to ahead live beyond back through for out on with further above into get the see a an over from "
    "after along away down up in at by deep far big hand home where wrong well fast public global".split()
)
_CONTEXT_WINDOW = 6  # tokens


@dataclass
class _Taxonomy:
    latin: dict[tuple[str, ...], str] = field(default_factory=dict)            # lowercase tokens -> canonical
    strict: dict[str, tuple[str, str]] = field(default_factory=dict)          # exact token -> (canonical, mode)
    cjk: dict[str, str] = field(default_factory=dict)                         # CJK alias -> canonical
    mixed: list[tuple[str, str]] = field(default_factory=list)                # lowercase mixed-script alias -> canonical
    canonical: dict[str, str] = field(default_factory=dict)                   # key -> canonical (for canonical_skill)
    categories: dict[str, str] = field(default_factory=dict)                  # canonical -> category
    max_n: int = 1
    cjk_max: int = 1


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _key(name: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", name)).strip().casefold()


@lru_cache(maxsize=1)
def _taxonomy() -> _Taxonomy:
    tax = _Taxonomy()
    with open(DATA_FILE, encoding="utf-8") as f:
        data = yaml.load(f, Loader=_Loader)
    for category, skills in data.items():
        for canonical, aliases in (skills or {}).items():
            canonical = str(canonical)
            tax.categories[canonical] = category
            aliases = [str(a) for a in aliases or []]
            strict_self = ("=" + canonical) in aliases or ("~" + canonical) in aliases
            for alias in ([] if strict_self else [canonical]) + aliases:
                _add_alias(tax, canonical, alias, is_canonical=alias == canonical)
            tax.canonical.setdefault(_key(canonical), canonical)
    return tax


def _add_alias(tax: _Taxonomy, canonical: str, alias: str, *, is_canonical: bool) -> None:
    if alias[:1] in "=~":
        mode, word = alias[0], alias[1:]
        if _CJK.search(word):
            tax.mixed.append((word.lower(), canonical))
        else:
            tax.strict[word] = (canonical, mode)
        tax.canonical.setdefault(_key(word), canonical)
        return
    tax.canonical.setdefault(_key(alias), canonical)
    if _CJK.search(alias):
        if _CJK.fullmatch(alias.replace("·", "")) or re.fullmatch(r"[\u3400-\u9fff]+", alias):
            tax.cjk[alias] = canonical
            tax.cjk_max = max(tax.cjk_max, len(alias))
        else:
            tax.mixed.append((alias.lower(), canonical))
        return
    toks = tuple(_tokens(alias))
    if not toks:
        return
    if is_canonical and len(toks) == 1 and len(toks[0]) <= 2 and alias not in ("C++", "C#", "Go", "R", "C"):
        # very short canonical names (R, C, Go) only match through their strict aliases
        tax.strict.setdefault(alias, (canonical, "="))
        return
    if is_canonical and canonical in ("C", "R", "Go", "Move", "Cairo", "Julia", "Gin"):
        return
    tax.latin.setdefault(toks, canonical)
    tax.max_n = max(tax.max_n, len(toks))


def canonical_skill(name: str | None) -> str | None:
    """The canonical name for a skill written any way ("golang" -> "Go", "k8s" -> "Kubernetes",
    "大模型" -> "LLM"), or None when the taxonomy does not know it."""
    if not name or not str(name).strip():
        return None
    tax = _taxonomy()
    k = _key(str(name))
    if k in tax.canonical:
        return tax.canonical[k]
    toks = tuple(_tokens(str(name)))
    if toks in tax.latin:
        return tax.latin[toks]
    stripped = str(name).strip()
    if stripped in tax.strict:
        return tax.strict[stripped][0]
    return None


def skill_category(canonical: str) -> str | None:
    return _taxonomy().categories.get(canonical)


def all_skills() -> list[str]:
    return sorted(_taxonomy().categories)


#: After an alias that ends in a Latin letter or digit, the next character may not continue a word.
_LATIN_END = "(?![a-z0-9+#])"


@lru_cache(maxsize=1)
def _matchers() -> tuple[re.Pattern[str], re.Pattern[str] | None, re.Pattern[str] | None, dict[str, str]]:
    """(latin, cjk, strict, lookup): compiled matchers over every alias in the taxonomy."""
    tax = _taxonomy()
    lookup: dict[str, str] = {}
    latin_words: list[str] = []
    cjk_words: list[str] = []
    for toks, canonical in tax.latin.items():
        phrase = " ".join(toks)
        lookup[phrase] = canonical
        latin_words.append(phrase)
    for alias, canonical in tax.cjk.items():
        lookup[alias] = canonical
        cjk_words.append(alias)
    for alias, canonical in tax.mixed:
        lookup[alias] = canonical
        (latin_words if re.match(r"[a-z0-9.]", alias) else cjk_words).append(alias)
    latin = re.compile(r"(?<![a-z0-9+#])(" + _trie_pattern_ends(latin_words) + ")")
    cjk = re.compile("(" + _trie_pattern_ends(cjk_words) + ")") if cjk_words else None
    strict_words = sorted(tax.strict, key=len, reverse=True)
    strict = re.compile(r"(?<![A-Za-z0-9+#])(" + "|".join(re.escape(w) for w in strict_words) + r")(?![A-Za-z0-9+#])") \
        if strict_words else None
    return latin, cjk, strict, lookup


_LATIN_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+#")


@lru_cache(maxsize=1)
def _cjk_automaton() -> tuple[ahocorasick_rs.AhoCorasick, list[str], list[bool]] | None:
    """(Aho-Corasick automaton over the aliases the CJK regex matches, those aliases, whether each
    ends in a Latin word character), or None when the regex must be used (an alias with a space,
    which the regex matches across any run of blanks or hyphens).

    Why: ``re`` tries the alias trie at every character that starts some alias (a third of a Chinese
    text) and pays ~0.3 us per try; the automaton reads the text once. Leftmost-longest matching
    finds what the trie regex finds (at the leftmost position, the longest alias), except where the
    longest alias ends in a Latin letter and the text continues the word: the regex then falls
    back to a shorter alias, so ``_cjk_matches`` hands such texts to the regex.
    """
    tax = _taxonomy()
    words = list(dict.fromkeys([*tax.cjk, *(a for a, _ in tax.mixed if not re.match(r"[a-z0-9.]", a))]))
    if not words or any(" " in w for w in words):
        return None
    automaton = ahocorasick_rs.AhoCorasick(
        words, matchkind=ahocorasick_rs.MatchKind.LeftmostLongest, implementation=ahocorasick_rs.Implementation.DFA,
    )
    return automaton, words, [re.match(r".*[a-z0-9+#]$", w, re.I) is not None for w in words]


def _cjk_matches(lower: str) -> list[tuple[int, str]]:
    """(start, alias) of every match of the CJK alias regex in ``lower``, in order."""
    found = _cjk_automaton()
    if found is not None:
        automaton, words, latin_end = found
        try:
            matches = automaton.find_matches_as_indexes(lower)
        except UnicodeEncodeError:   # a lone surrogate (scraped text): the regex below copes with it
            matches = None
        n = len(lower)
        if matches is not None and not any(latin_end[i] and end < n and lower[end] in _LATIN_WORD_CHARS for i, _, end in matches):
            return [(start, words[i]) for i, start, _ in matches]
    cjk = _matchers()[1]
    return [] if cjk is None else [(m.start(), m.group(1)) for m in cjk.finditer(lower)]


def _trie_pattern_ends(words: list[str]) -> str:
    # every alias ending in a Latin letter/digit must not run into the next word
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = re.match(r".*[a-z0-9+#]$", word, re.I) is not None

    def build(node: dict) -> str:
        branches = []
        for ch in sorted(k for k in node if k):
            piece = r"[\s\-]+" if ch == " " else re.escape(ch)
            branches.append(piece + build(node[ch]))
        if "" in node:
            branches.append(_LATIN_END if node[""] else "")
        if len(branches) == 1:
            return branches[0]
        return "(?:" + "|".join(branches) + ")"

    return build(trie)


def _lookup_key(matched: str) -> str:
    return re.sub(r"[\s\-]+", lambda m: " " if m.group(0).strip() == "" or len(m.group(0)) > 1 else m.group(0), matched.lower())


_WORD_CHAR = re.compile(r"[a-z0-9+#]")
_SEPARATOR_RUN = re.compile(r"[\s/\-_]+")
_FULLWIDTH = re.compile(r"[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]")
#: A word: ``\.?[A-Za-z0-9+#]+(?:[.\-][A-Za-z0-9+#]+)*``, spelled to start with a plain character
#: class (a leading "." must be followed by a word character) so re skips non-word text quickly.
_WORD = re.compile(r"[.A-Za-z0-9+#](?:(?<=\.)[A-Za-z0-9+#]|(?<!\.))[A-Za-z0-9+#]*(?:[.\-][A-Za-z0-9+#]+)*")


#: Bytes that can be part of a word (``_WORD``'s characters); every other byte, and every byte of a
#: multi-byte UTF-8 sequence (all >= 0x80), becomes a space.
_WORD_BYTES = bytes(
    c if chr(c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+#.-" else 0x20 for c in range(256)
)
#: What a chunk of ``_WORD_BYTES`` holding no "." or "-" is made of.
_PLAIN_CHUNK = re.compile(r"[A-Za-z0-9+#]+")
#: The bytes after the first of a multi-byte UTF-8 sequence.
_UTF8_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))
#: A space-separated chunk holding a "." or "-" (the only chunks that are not one word as they are).
#: Starts with a literal space and never backtracks into a chunk, so re jumps from space to space.
_DOTTED_CHUNK = re.compile(r" ([^ .\-]*+[.\-][^ ]*)")


def _word_set(lower: str) -> set[str]:
    """``set(_WORD.findall(lower))`` plus every piece of every hyphenated word (see ``_utf8_word_set``)."""
    return _utf8_word_set(lower.encode("utf-8", "surrogatepass"))


def _utf8_word_set(data: bytes) -> set[str]:
    """``_word_set`` of the text whose UTF-8 (surrogatepass) encoding is ``data``; twice as fast as the regex.

    The regex pays ~0.4 us per word; here one C-level bytes translate turns every non-word
    character into a space and ``str.split`` cuts the words. A chunk of plain word characters is
    exactly one ``_WORD`` match; only the chunks holding "." or "-" ("node.js", "end.", "ci-cd")
    go through the regex, joined into one short string. Same set: a ``_WORD`` match never spans
    a non-word character, and looks at nothing outside its own characters.
    """
    # a "." before a space ends a sentence, never a word: dropping it first leaves most chunks
    # plain, so far fewer go through the regex
    words = set(data.translate(_WORD_BYTES).replace(b". ", b" ").decode("ascii").split())
    if words:
        dotted = _DOTTED_CHUNK.findall(" " + " ".join(words))
        if dotted:
            words.difference_update(dotted)
            found = _WORD.findall(" ".join(dotted))
            words.update(found)
            hyphenated = [w for w in found if "-" in w]
            if hyphenated:   # every piece of every hyphenated word, in one C-level split
                words.update(filter(None, "-".join(hyphenated).split("-")))
    return words


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, str], dict[str, list[tuple[frozenset[str], str, str]]]]:
    """(single-token alias -> canonical, first token -> [(its other tokens, phrase, canonical)]).

    The other tokens are a frozenset so "all words occur" is one C-level subset test per phrase.
    """
    tax = _taxonomy()
    single: dict[str, str] = {}
    multi: dict[str, list[tuple[frozenset[str], str, str]]] = {}
    for toks, canonical in tax.latin.items():
        if len(toks) == 1:
            single.setdefault(toks[0], canonical)
        else:
            multi.setdefault(toks[0], []).append((frozenset(toks[1:]), " ".join(toks), canonical))
    return single, multi


@lru_cache(maxsize=1)
def _key_sets() -> tuple[frozenset[str], dict[str, list[str]]]:
    """(every word that starts an alias, strict alias lowercased -> its spellings).

    One frozenset of all keys, so each posting costs one C-level set intersection (the words of a
    posting are not hashed yet: each lookup computes a hash, so one pass instead of three).
    """
    single, multi = _index()
    strict_lower: dict[str, list[str]] = {}
    for word in _taxonomy().strict:
        strict_lower.setdefault(word.lower(), []).append(word)
    return frozenset(single) | frozenset(multi) | frozenset(strict_lower), strict_lower


@lru_cache(maxsize=1)
def _plain_alias_words() -> frozenset[str]:
    """Every word an alias is made of (keys of ``_key_sets`` and the other words of multi-word
    aliases) that holds no "." or "-": the only plain chunks ``extract_skills`` needs to know of."""
    keys, _ = _key_sets()
    words = set(keys)
    for phrases in _index()[1].values():
        for rest, _, _ in phrases:
            words.update(rest)
    return frozenset(w for w in words if "." not in w and "-" not in w)


@lru_cache(maxsize=1)
def _plain_alias_automaton() -> tuple[ahocorasick_rs.AhoCorasick, dict[str, str]]:
    """(automaton over every plain alias word with a space on either side, padded word -> word).

    Only words made of chunk characters: any other can never be a chunk (and one with a space
    could match across two)."""
    unpad = {f" {w} ": w for w in sorted(_plain_alias_words()) if _PLAIN_CHUNK.fullmatch(w)}
    automaton = ahocorasick_rs.AhoCorasick(
        list(unpad), store_patterns=True, implementation=ahocorasick_rs.Implementation.ContiguousNFA,
    )
    return automaton, unpad


def _alias_words(data: bytes) -> set[str]:
    """``_utf8_word_set(data)`` as far as aliases care: its plain chunks that are alias words, plus
    every word of its chunks holding "." or "-". What ``extract_skills`` asks of the word set (its
    intersection with the alias keys, and whether a phrase's other words occur) is the same.

    Why: building the full word set costs a set insertion per word of the posting, and finding
    the dotted chunks ran a regex over the joined words; here the dotted chunks are found with
    ``bytes.find``, and the plain alias words by one automaton pass that yields only them (splitting
    the text made a string of every word). Every non-word byte is a space by now, so " word " occurs
    in the space-padded text exactly where the word is a whole chunk; overlapping matches, since
    neighbouring chunks share the space between them. A multi-byte character becomes one space,
    not one per byte (its continuation bytes are deleted): the same chunks, and a Chinese text is
    not mostly runs of spaces, on which the automaton is slow.
    """
    translated = data.translate(_WORD_BYTES, _UTF8_CONTINUATION_BYTES).replace(b". ", b" ")
    found = _dotted_words(translated) if (b"." in translated or b"-" in translated) else set()
    automaton, unpad = _plain_alias_automaton()
    found.update(map(unpad.__getitem__, automaton.find_matches_as_strings(f" {translated.decode('ascii')} ", overlapping=True)))
    return found


def _dotted_words(translated: bytes) -> set[str]:
    """The words ``_utf8_word_set`` takes from the chunks of ``translated`` (non-word bytes already
    spaces, sentence-final dots dropped) that hold "." or "-": ``_WORD`` matches and every piece of
    every hyphenated one. Each chunk is cut out around a ``bytes.find`` hit (memchr speed), not by a
    regex tried at every space of the text (a Chinese text turns into long runs of them)."""
    chunks = set()
    n = len(translated)
    for sep in (b".", b"-"):
        i = translated.find(sep)
        while i >= 0:
            end = translated.find(b" ", i)
            if end < 0:
                end = n
            chunks.add(translated[translated.rfind(b" ", 0, i) + 1:end])
            i = translated.find(sep, end)
    found = set(_WORD.findall(b" ".join(chunks).decode("ascii")))
    hyphenated = [w for w in found if "-" in w]
    if hyphenated:
        found.update(filter(None, "-".join(hyphenated).split("-")))
    return found


_NEXT_WORD = re.compile(r"[\s\-]+([A-Za-z]+)")
_STRICT_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+#")


@lru_cache(maxsize=None)
def _strict_pattern(word: str) -> re.Pattern[str]:
    """A strict alias as a regex that starts with its literal (so re scans with a fast prefix search).

    The left word boundary is checked by the caller: a leading lookbehind would make re try the
    pattern at every position of the text.
    """
    return re.compile(re.escape(word) + r"(?![A-Za-z0-9+#])")


#: ``_FULLWIDTH`` in UTF-8: U+FF10-FF19, U+FF21-FF3A (EF BC ..), U+FF41-FF5A (EF BD ..). A lead byte
#: EF never occurs inside another character's encoding, so a match is always a whole character.
_FULLWIDTH_UTF8 = re.compile(rb"\xef(?:\xbc[\x90-\x99\xa1-\xba]|\xbd[\x81-\x9a])")


#: UTF-8 lead bytes of U+4000-U+9FFF; U+3400-U+3FFF is E3 followed by 90-BF.
_CJK_LEADS_UTF8 = (b"\xe4", b"\xe5", b"\xe6", b"\xe7", b"\xe8", b"\xe9")
_CJK_EXT_A_UTF8 = re.compile(rb"\xe3[\x90-\xbf]")


def _has_cjk_utf8(data: bytes) -> bool:
    """Whether the text encoded as ``data`` (UTF-8, surrogatepass) holds a ``_CJK`` character.

    A few C-level byte searches: ``_CJK.search`` over the text tries its class at every character,
    which costs most on long non-CJK texts with a curly quote or an accent. A lead byte E3-E9 never
    occurs inside another character's encoding.
    """
    for lead in _CJK_LEADS_UTF8:   # a plain loop: any(generator) costs more than the searches
        if lead in data:
            return True
    return b"\xe3" in data and _CJK_EXT_A_UTF8.search(data) is not None


def extract_skills(text: str | None, *, lower: str | None = None) -> list[str]:
    """Canonical skills mentioned in ``text`` (title + description), in order of first mention.

    ``lower`` is ``text.lower()`` when the caller has it already (the normalizer lowercases the
    description for other parsers). Works on the set of words first (set operations run in C),
    and only searches phrases for multi-word aliases whose words all occur.
    """
    if not text:
        return []
    tax = _taxonomy()
    single, multi = _index()
    if lower is None:
        lower = text.lower()
    data = lower.encode("utf-8", "surrogatepass")
    # fullwidth letters and digits lowercase to fullwidth ones, so the lowered text tells
    if len(data) != len(text) and _FULLWIDTH_UTF8.search(data):
        text = unicodedata.normalize("NFKC", text)
        lower = text.lower()
        data = lower.encode("utf-8", "surrogatepass")
    lowered = _alias_words(data)   # the word set, as far as aliases care (see _alias_words)
    found: dict[str, int] = {}

    def note(canonical: str, pos: int) -> None:
        if pos < 0:
            pos = len(text)
        if canonical not in found or pos < found[canonical]:
            found[canonical] = pos

    keys, strict_lower = _key_sets()
    hits = keys.intersection(lowered)
    for w in hits:   # note() inlined: this loop runs for every matched word
        canonical = single.get(w)
        if canonical is None:
            continue
        pos = lower.find(w)
        if pos < 0:
            pos = len(text)
        if canonical not in found or pos < found[canonical]:
            found[canonical] = pos
    firsts = [w for w in hits if w in multi]
    if firsts:
        norm = None   # built only once some phrase has all its words in the text
        by_word = set(found)   # a skill a single word already named keeps that word's position
        for first in firsts:
            for rest, phrase, canonical in multi[first]:
                # phrases of one skill all count (earliest wins): skipping the rest once one was
                # found made the position depend on the set's iteration order (the hash seed)
                if canonical in by_word or not rest <= lowered:
                    continue
                if norm is None:
                    norm = " ".join(lower.replace("/", " ").replace("-", " ").replace("_", " ").split())
                pos = norm.find(phrase)
                while pos >= 0:
                    end = pos + len(phrase)
                    if (pos == 0 or not _WORD_CHAR.match(norm[pos - 1])) and (end >= len(norm) or not _WORD_CHAR.match(norm[end])):
                        note(canonical, pos)
                        break
                    pos = norm.find(phrase, pos + 1)
    if len(data) != len(lower) and _has_cjk_utf8(data):
        lookup = _matchers()[3]
        for start, alias in _cjk_matches(lower):
            canonical = lookup.get(alias)
            if canonical is not None:
                note(canonical, start)
    strict_hits = [w for lw in hits if lw in strict_lower for w in strict_lower[lw] if w in text]
    if strict_hits:
        positions = sorted(found.values())
        for word in strict_hits:
            canonical, mode = tax.strict[word]
            for m in _strict_pattern(word).finditer(text):
                if m.start() and text[m.start() - 1] in _STRICT_WORD_CHARS:
                    continue   # the lookbehind, checked by hand so the regex can scan for its literal
                after = text[m.end():m.end() + 12]
                if mode == "=":
                    nxt = _NEXT_WORD.match(after)
                    if canonical == "Go" and nxt and nxt.group(1).lower() in _GO_VERB_NEXT:
                        continue
                    note(canonical, m.start())
                    break
                if after[:1] in ("&", "'", "’", "-", ".") or _CJK.match(after[:1] or " "):
                    continue
                if any(abs(p - m.start()) <= 40 for p in positions):
                    note(canonical, m.start())
                    break
    # ties (Java and JavaScript both first seen where "javascript" starts) go by name: the order the
    # set intersections visit words in depends on the process's hash seed
    return [name for _, name in sorted([(pos, name) for name, pos in found.items()])]


def _resolve(matched: str, lookup: dict[str, str], tax: _Taxonomy) -> str | None:
    low = matched.lower()
    hit = lookup.get(low)
    if hit is not None:
        return hit
    toks = tuple(_tokens(low))
    return tax.latin.get(toks)


def _adjacent(text: str, tokens: list[tuple[str, int, int]], i: int, length: int) -> bool:
    """Whether tokens i..i+length are separated only by spaces or a single joiner (phrase, not list)."""
    for k in range(i, i + length - 1):
        gap = text[tokens[k][2]:tokens[k + 1][1]]
        if len(gap) > 2 or any(ch not in " /-_" for ch in gap):
            return False
    return True


def _hyphen_or_amp_follows(text: str, end: int) -> bool:
    return text[end:end + 1] in ("&", "'", "’", "-", ".")

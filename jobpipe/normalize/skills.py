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
from functools import cache, lru_cache
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
    not_skills: dict[str, tuple[str, ...]] = field(default_factory=dict)  # canonical -> phrases that do not mean it
    functions: frozenset[str] = frozenset()   # skills that name a job function (see job_functions in the data)


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
        if category == "not_skills":
            tax.not_skills = {str(k): tuple(str(p).lower() for p in v or []) for k, v in (skills or {}).items()}
            continue
        if category == "job_functions":
            tax.functions = frozenset(str(k) for k in skills or [])
            continue
        for canonical, aliases in (skills or {}).items():
            canonical = str(canonical)
            tax.categories[canonical] = category
            aliases = [str(a) for a in aliases or []]
            # "!self": the canonical name is an ordinary word ("Growth", "Agile", "Investment") and
            # only the listed aliases name the skill
            no_self = "!self" in aliases
            aliases = [a for a in aliases if a != "!self"]
            strict_self = no_self or ("=" + canonical) in aliases or ("~" + canonical) in aliases
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


@lru_cache(maxsize=1)
def skill_synonyms() -> dict[str, tuple[str, ...]]:
    """canonical skill -> the names that always mean it, lower-cased, canonical name first.

    What search expands a query word with (Chinese and English names of one skill: 智能合约 and
    smart contract, 测试 and QA). Left out are names that mean the skill only in some spelling or
    context (``=Go``, ``~R``: as a lower-case word they are ordinary words), the canonical name of
    a ``!self`` skill (an ordinary word itself: Growth, Agile), and Latin names of one or two
    letters (ts, py), which collide with unrelated abbreviations.
    """
    with open(DATA_FILE, encoding="utf-8") as f:
        data = yaml.load(f, Loader=_Loader)
    out: dict[str, tuple[str, ...]] = {}
    for category, skills in data.items():
        if category in ("not_skills", "job_functions"):
            continue
        for canonical, aliases in (skills or {}).items():
            names = [str(a) for a in aliases or []]
            strict_self = "!self" in names or any(a[1:] == str(canonical) for a in names if a[:1] in "=~")
            kept = ([] if strict_self else [str(canonical)]) + [a for a in names if a[:1] not in "=~!"]
            folded = [_key(a) for a in kept if _CJK.search(a) or len(_key(a)) > 2]
            if folded:
                out[str(canonical)] = tuple(dict.fromkeys(folded))
    return out


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
        # a mixed alias holds CJK ("office软件", "app开发"), so it is found where the CJK ones are
        cjk_words.append(alias)
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
    words = list(dict.fromkeys([*tax.cjk, *(a for a, _ in tax.mixed)]))
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
            return [(start, words[i]) for i, start, _ in matches
                    if not (start and lower[start - 1] in _LATIN_WORD_CHARS and words[i][0] in _LATIN_WORD_CHARS)]
    cjk = _matchers()[1]
    # an alias that starts with a Latin word ("office软件") starts a word: "homeoffice软件" is not it
    return [] if cjk is None else [(m.start(), m.group(1)) for m in cjk.finditer(lower)
                                   if not (m.start() and lower[m.start() - 1] in _LATIN_WORD_CHARS
                                           and m.group(1)[0] in _LATIN_WORD_CHARS)]


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
def case_sensitive_aliases() -> dict[str, str]:
    """Lower-cased case-sensitive alias -> its spelling ("rust" -> "Rust", "go" -> "Go").

    A posting's "rust" or "spring" is usually the word, so these match only as spelled; a search
    query writes them in lower case where a role word says which is meant ("rust developer").
    """
    return {lower: min(spellings) for lower, spellings in _key_sets()[1].items()}


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


@cache
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

    ``lower`` is ``text.lower()`` when the caller has it already. A skill whose every mention lies
    inside a phrase that means something else (``not_skills`` in the taxonomy: "A/B testing" is no
    Testing, "向量化" no Quantitative Analysis, "social security" no Security) is left out.
    """
    found = _extract_skills(text, lower=lower)
    if not found or text is None:
        return found
    not_skills = _taxonomy().not_skills
    low = lower if lower is not None else text.lower()
    suspects = [s for s in found if s in not_skills and any(p in low for p in not_skills[s])]
    if not suspects:
        return found
    drop = set()
    for skill in suspects:
        masked = _mask(text, [p for p in not_skills[skill] if p in low])
        if skill not in _extract_skills(masked):
            drop.add(skill)
    return [s for s in found if s not in drop]


def _mask(text: str, phrases: list[str]) -> str:
    """``text`` with every (case-insensitive) occurrence of ``phrases`` blanked, lengths kept."""
    pattern = re.compile("|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)), re.I)
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _extract_skills(text: str | None, *, lower: str | None = None) -> list[str]:
    """``extract_skills`` before the ``not_skills`` check.

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
                if after[:1] in (":", "：") or after[:2] in (" :", " ："):
                    continue   # "PS：" heads a note, "PR:" a label: not the tools
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


#: Sentences of legal and recruiting boilerplate (EEO statements, fraud and agency notices, privacy
#: and drug-test policies): they name recruiting, law, payments and security without the job
#: needing any of it. ``_BOILERPLATE_WORDS`` are literals one of which every match holds (a line
#: without any is never searched: the regex tried at every character is the slow part).
_BOILERPLATE = re.compile(
    r"equal (?:employment )?opportunit|\beeo\b|affirmative action|without regard to|regardless of (?:race|age|sex)|"
    r"discriminat|protected (?:veteran|class|status)|sexual orientation|gender identity|reasonable accommodation|"
    r"e-verify|drug[- ]free|drug (?:test|screen)|background (?:check|investigation)|recruit(?:ment|ing) (?:fraud|scam)|"
    r"fraudulent|unsolicited|recruit(?:ment|ing) agenc|placement fees?|privacy (?:notice|policy|statement)|"
    r"pay transparency|social security number|talent acquisition (?:team|representative|partner)|"
    r"legally authori[sz]ed|authori[sz]ation to work|work authori[sz]ation|visa sponsorship",
    re.I,
)
_BOILERPLATE_WORDS = ("opportunit", "eeo", "affirmative", "regard", "discriminat", "protected", "orientation",
                      "identity", "accommodation", "verify", "drug", "background", "recruit", "fraudulent",
                      "unsolicited", "placement", "privacy", "transparency", "security number", "acquisition",
                      "authori", "sponsorship")

#: "work closely with Marketing, Product and Engineering teams", "与产品经理、开发团队紧密协作": the
#: teams a job works with are not its skills, so these spans (group 1) are left out of skill
#: extraction. The English patterns run on the lowercased text and start with a literal word (the
#: word boundary before it is checked by hand): re then skips ahead by the first character instead
#: of trying the whole alternation at every position, five to ten times faster.
_COLLAB_EN = re.compile(
    r"(?:work(?:s|ing)?|partner(?:s|ing)?|collaborat(?:e|es|ing)|liais(?:e|es|ing)|coordinat(?:e|es|ing)|"
    r"interfac(?:e|es|ing)|interact(?:s|ing)?|align(?:s|ing)?|engag(?:e|es|ing))\s+"
    r"(?:closely\s+|cross-functionally\s+|directly\s+|regularly\s+|effectively\s+)?with\s+"
    r"((?:[\w&/,.'’-]+\s+){0,9}?)(?=(?:teams?|departments?|organi[sz]ations?|functions|groups?|partners|stakeholders|"
    r"leads|leaders|counterparts)\b)"
)
_COLLAB_ZH = re.compile(
    r"(?<!参)(?:与|和|跟|同|协同|配合|协调|对接)\s*([^，,。；;\n与和]{1,24}?)(?:等)?(?:团队|部门|同事|人员|角色)?"
    r"(?=\s*(?:紧密|密切|高效|深度|积极|良好)?\s*(?:合作|协作|配合|沟通|对接|联动))"
)

#: "marketing, sales, project management, qa, and production": a list of functions (two words an
#: item at most, joined by commas, "and", "&" or "/"), lowercased.
_ITEM = r"[a-z][\w&.'’-]*(?:\s+[a-z][\w&.'’-]*)?"
_LIST = rf"{_ITEM}(?:(?:\s*,\s*(?:and\s+|&\s+)?|\s+(?:and|&)\s+|\s*/\s*){_ITEM})+"
#: Lists of the teams a job works with, in the forms the collaborator sentence above misses: after
#: someone's partners "in" or "across" ("stakeholders in Partner Programs, Product Management,
#: Engineering, Sales, and Marketing"), after "collaborating with" without a team word, right
#: before "teams" ("our sales and procurement teams", see ``_list_before``), and in Chinese
#: "协调产品、研发、测试、运营等多方角色", "深度对接研发、UI/UX、测试团队".
_TEAM_LISTS_EN = re.compile(
    rf"(?:stakeholders|partners|teams|leaders|directors|vps|peers|functions|colleagues|departments|"
    rf"collaborat(?:e|es|ing)|partner(?:s|ing)?|work(?:s|ing)?|coordinat(?:e|es|ing)|liais(?:e|es|ing)|"
    rf"communicat(?:e|es|ing)|interfac(?:e|es|ing))(?:\s+(?:closely|directly|regularly|cross-functionally))?"
    rf"\s+(?:with|in|across|from|including)\s+(?:(?:the|our|other)\s+)?({_LIST})"
)
_TEAM_LISTS_ZH = re.compile(
    r"(?:协调|对接|配合|协同|联动|协作|联合|与)\s*([^，,。；;\n]{1,40}?)等?(?:多方|各方?|相关|多个|多|其他)?"
    r"(?:团队|部门|角色|同事|岗位)"
)
#: The team words a list right before which names teams, and the list read backwards from one.
_TEAM_WORD = re.compile(r"(?:teams?|departments?|organi[sz]ations?|functions|groups|stakeholders|leaders|"
                        r"counterparts|colleagues|personnel|peers)\b")
_LIST_TOKEN = re.compile(r"[A-Za-z][\w&.'’-]*|\s*,\s*|\s*/\s*|\s+")
_JOINERS = frozenset(("and", "&"))
_CJK_ANY = re.compile(r"[\u3400-\u9fff]")


@lru_cache(maxsize=16)
def _literals(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in words))


def _finds(low: str, words: tuple[str, ...]) -> bool:
    """Whether ``low`` holds one of ``words`` (one regex of literals: a pass in C)."""
    return _literals(words).search(low) is not None


def _list_before(text: str, end: int) -> tuple[int, int] | None:
    """(start, end) of the list of functions that ends at ``end`` ("sales and procurement" before
    " teams"), read backwards a token at a time, or None when what precedes is no list (one item)."""
    window = text[max(0, end - 120):end]
    toks = _LIST_TOKEN.findall(window)
    items = 0
    words_in_item = 0
    pos = end
    start = None
    for tok in reversed(toks):
        stripped = tok.strip()
        if not stripped:        # a space inside an item or around a joiner
            pos -= len(tok)
            continue
        if stripped in (",", "/") or stripped.lower() in _JOINERS:
            if words_in_item == 0:
                if stripped.lower() in _JOINERS or stripped == ",":
                    pos -= len(tok)   # ", and"
                    continue
                break
            words_in_item = 0
            pos -= len(tok)
            continue
        if not stripped[0].isalpha() or words_in_item == 2:
            break
        if words_in_item == 0:
            items += 1
        words_in_item += 1
        pos -= len(tok)
        start = pos
    if items < 2 or start is None:
        return None
    return start, end


#: Headings of a section about the company (its products and history name skills the job does not
#: need): "## 公司介绍", "关于我们", "About us", "Who we are", "公司附加信息：...".
_COMPANY_HEAD = re.compile(
    r"(?:公司|团队|企业|公司/团队|公司及团队)(?:介绍|简介|概况|背景|附加信息)|关于我们|关于公司|"
    r"about\s+(?:us|the\s+company|the\s+team|our\s+company)|who\s+we\s+are|company\s+(?:overview|description|profile)",
    re.I,
)
_COMPANY_WORDS = ("公司", "团队", "企业", "关于", "about", "who we are", "company")
#: A line that heads the next section and so ends the company's (markdown marks are gone by now):
#: short, no sentence punctuation at its end, no list marker, no "key: value".
_HEADING = re.compile(
    r"^(?![-•*·>]|\d{1,2}\s*[.、)）]|[(（]?\d{1,2}[)）])"
    r"(?!.*[:：]\s*\S)(?!.*https?://).{2,40}(?<![.,;。，；!！?？、])$"
)


def _without_company_sections(description: str) -> str:
    lines = description.split("\n")
    out: list[str] = []
    skipping = False
    for line in lines:
        bare = line.strip().strip("#*【】[]|- ").strip()
        head = _COMPANY_HEAD.match(bare)
        if head and len(bare) <= 40 + (len(bare) - head.end() if bare[head.end():head.end() + 1] in (":", "：") else 0):
            # the heading may carry the section on its own line ("公司附加信息：项目为...")
            skipping = True
            out.append("")
            continue
        if skipping and _HEADING.match(bare):
            skipping = False
        if skipping and _ADDRESSES_READER.search(line):
            # "在 Phala Network，你将有机会深入参与...": a sentence to the reader is about the job
            line = " ".join(x for x in _SENTENCE_END.split(line) if _ADDRESSES_READER.search(x))
            out.append(line)
            continue
        out.append("" if skipping else line)
    return "\n".join(out)


#: A sentence that speaks to the candidate (about the job, not the company).
_ADDRESSES_READER = re.compile(r"你|您|\byou(?:r|'ll|’ll)?\b|候选人|\bcandidates?\b|\bthis role\b|\bthe role\b", re.I)


def _without_boilerplate(description: str) -> str:
    """Sentences of boilerplate dropped (a line may hold a whole description: only its boilerplate
    sentences go, not the job with them)."""
    out = []
    for line in description.split("\n"):
        if _finds(line.lower(), _BOILERPLATE_WORDS) and _BOILERPLATE.search(line):
            line = " ".join(s for s in _SENTENCE_END.split(line) if not _BOILERPLATE.search(s))
        out.append(line)
    return "\n".join(out)


_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s*(?=\S)")


def skill_text(description: str) -> str:
    """The part of a description that names the job's skills: boilerplate sentences and sections
    about the company dropped, the teams it works with blanked (positions kept, so skills keep their
    order of first mention)."""
    if not description:
        return description
    low = description.lower()
    if _finds(low, _BOILERPLATE_WORDS):
        description = _without_boilerplate(description)
    if _finds(low, _COMPANY_WORDS) and _COMPANY_HEAD.search(description):
        description = _without_company_sections(description)
    low = description.lower()
    if len(low) != len(description):   # a character whose lowercase is longer: positions would not agree
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in description)
    spans: list[tuple[int, int]] = []
    for pattern in (_COLLAB_EN, _TEAM_LISTS_EN):
        spans += [m.span(1) for m in pattern.finditer(low)
                  if not (m.start() and low[m.start() - 1].isalnum()) and m.start(1) < m.end(1)]
    for m in _TEAM_WORD.finditer(low):
        start = m.start()
        if not start or not low[start - 1].isspace():
            continue
        while start and low[start - 1].isspace():
            start -= 1
        span = _list_before(description, start)
        if span:
            spans.append(span)
    if _CJK_ANY.search(description):
        for pattern in (_COLLAB_ZH, _TEAM_LISTS_ZH):
            spans += [m.span(1) for m in pattern.finditer(description) if m.start(1) < m.end(1)]
    if not spans:
        return description
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        start = max(start, pos)
        pieces += (description[pos:start], " " * (end - start))
        pos = end
    pieces.append(description[pos:])
    return "".join(pieces)


def _blank_collaborators(m: re.Match[str]) -> str:
    group = next(i for i in range(1, len(m.groups()) + 1) if m.group(i) is not None)
    start, end = m.start(group) - m.start(), m.end(group) - m.start()
    whole = m.group(0)
    return whole[:start] + " " * (end - start) + whole[end:]


#: Where a description asks for something: "experience in/with ...", "... background", "熟悉...",
#: "...经验". A job function counts from the description only inside such a window: the text after
#: a cue up to the end of its clause, or before a cue back to the start of its clause.
_ASK_AFTER = re.compile(
    r"(?:experience|background|knowledge|expertise|understanding|proficiency|familiarity|track record|degree)"
    r"\s+(?:in|with|of|across|within)\s+[^.;\n]{0,60}"
    r"|(?:熟悉|精通|掌握|了解|具备|具有|擅长|负责)[^，,。；;\n]{0,24}"
)
_ASK_BEFORE = re.compile(r"experience|background|expertise|knowledge|skills|经验|背景|知识|能力|工作")
_CLAUSE_END = re.compile(r".*[.;,\n，。；、]", re.S)


def _asked_windows(text: str) -> str:
    text = text.lower()
    windows = [m.group(0) for m in _ASK_AFTER.finditer(text)]
    for m in _ASK_BEFORE.finditer(text):
        cjk = m.group(0)[0] >= "\u3400"
        before = text[max(0, m.start() - (16 if cjk else 40)):m.start()]
        cut = _CLAUSE_END.match(before)
        windows.append((before[cut.end():] if cut else before) + m.group(0))
    return "\n".join(windows)


def job_skills(title: str, description: str) -> list[str]:
    """Skills of a job from its title and description (:func:`skill_text` of it).

    A skill that names a job function (Sales, Marketing, Finance ...) is kept from the description
    only where the description asks for it or the title names it too: "sales data", "partner with
    Marketing", "一家金融科技公司" say who the job works with or what the company does, not what
    the candidate must know.
    """
    text = skill_text(description)
    # str.lower() maps characters one by one, except a final sigma, which looks no further than a
    # line break: the joined lowercase halves are the lowercase of the joined text
    found = extract_skills(f"{title}\n{text}", lower=f"{title.lower()}\n{text.lower()}")
    functions = _taxonomy().functions
    suspects = [s for s in found if s in functions]
    if not suspects:
        return found
    named = set(extract_skills(title)) if title else set()
    suspects = [s for s in suspects if s not in named]
    if not suspects:
        return found
    asked = set(extract_skills(_asked_windows(text)))
    return [s for s in found if s not in suspects or s in asked]

"""A user's query -> weighted keyword concepts for the full-text leg.

Real queries mix languages and restate their filters ("北京的测试工程师" with city=Beijing),
and a Chinese query is often looking for an English posting. So, before the database sees
them, query words are:

* stripped of words a structured filter already captures (the city, the job type, "remote"):
  every candidate satisfies them, so they only add noise, and postings in the other language
  never contain them;
* grouped into *concepts*: one query word plus its alternatives (its English plural/singular,
  its canonical skill name, its translations from the bilingual job-term list kept as data in
  ``data/job_terms.txt``). A posting earns a concept's weight once, through its best-matching
  alternative, so a translation helps a cross-lingual match without double counting.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources

from jobpipe.normalize import parse_seniority
from jobpipe.search.families import counts_for
from jobpipe.search.resolve import bilingual_city_names, canonical_skill, city_aliases, resolve_city, skill_synonyms
from jobpipe.search.translate import (
    MAX_GLOSSES,
    MAX_HEADWORDS,
    chinese_for,
    chinese_senses,
    english_for,
    english_senses,
)
from jobpipe.search.types import SearchFilters
from jobpipe.text.pinyin import marked, may_be_pinyin
from jobpipe.text.tokenize import tokenize
from jobpipe.text.traditional import to_simplified

#: Weight of an alternative relative to the word the user typed.
TRANSLATION_WEIGHT = 0.7
VARIANT_WEIGHT = 0.9
#: Translations from the general dictionary (CC-CEDICT): broader than the curated job terms.
DICTIONARY_WEIGHT = 0.6
#: Whether the skill taxonomy's synonyms join the term groups (see ``_term_groups``; off only to measure).
SKILL_GROUPS = True
#: The taxonomy's names of a narrower skill in the family a query word names (智能合约 ->
#: Solidity, Hardhat; 前端 -> React, Vue: ``data/skill_families.yaml``). A posting that lists one
#: of a family's tools does that work, whether or not it names the family. Off only to measure.
FAMILY_TERMS = True
FAMILY_WEIGHT = 0.5
#: The levels a query's range of levels implies ("lead or principal": staff, as
#: ``understand.seniority_levels`` reads it) are searched as words too, like a family's tools:
#: the seniority list lifts only candidates the legs found, and a "Staff Data Scientist" names
#: neither word typed. Off only to measure.
LEVEL_TERMS = True
#: Latin phrases of up to this many words are looked up in the dictionary as one term.
MAX_PHRASE_WORDS = 3
#: A Chinese query word that is part of a longer query word ("科学家" in "数据科学家", which
#: jieba's search mode also emits) adds this share of its IDF: a posting containing the long
#: word would otherwise score it once per nested part, while a posting in the other language
#: matches the long word's one translation ("data scientist") once.
SUBWORD_WEIGHT = 0.35
#: Translations of a compound read from its parts (``_composed_glosses``), at most.
MAX_COMPOSED = 8

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# Words that say "I want a job" rather than which job.
_QUERY_STOP = frozenset(
    "job jobs position positions role roles opening openings opportunity hiring looking want need "
    "work working company 岗位 职位 工作 机会 招 招人 找 想 一个 一家 相关 方向 要求 可以 能够 优先".split()
) | frozenset(
    # Function words. Each matches only postings in the language it was typed in, and its IDF is
    # inflated by the other language's half of the catalogue (a word in every English posting is
    # in none of the Chinese ones): as concepts they pushed same-language postings above the
    # other-language one that was asked for. The posting tokenizer's stop list is smaller (it is
    # shared with stored terms); these are dropped from queries only.
    "its their them they he she his her him who whom whose which what where when why how there here "
    "these those than then so such very can could would should may might must shall do does did doing "
    "done been being was were am not no nor but if about into onto over under also just only more most "
    "other others some any each every all both either neither way ways etc able via per i me my mine "
    "yours ours us "
    "我们 你们 他们 她们 它们 我 你 他 她 它 这 那 这些 那些 这个 那个 一些 其他 其它 以及 并且 而且 "
    "或者 还有 进行 事情 非常 比较 很 更 最 如果 因为 所以 但是 然后 通过 之一 等等".split()
)

_JOB_TYPE_WORDS: dict[str, tuple[str, ...]] = {
    "intern": ("实习生", "实习", "internships", "internship", "interns", "intern"),
    "campus": ("校园招聘", "校招", "应届毕业生", "应届生", "应届", "new grads", "new grad", "graduates", "campus"),
    "part_time": ("兼职", "part-time", "part time", "parttime"),
    "full_time": ("全职", "full-time", "full time", "fulltime"),
    "contract": ("合同工", "外包", "contractor", "contract"),
}
_REMOTE_WORDS = ("远程办公", "远程工作", "远程", "居家办公", "在家办公", "分布式办公", "remote-first", "remotely", "remote", "wfh")


@dataclass
class Alternative:
    text: str          # tokenized with the same tokenizer as postings, then given to the database
    weight: float
    #: The dictionary sense this alternative spells (a gloss and its plural share one), when it is
    #: one of several senses the keyword leg chooses among (``Concept.max_senses``); else None.
    sense: str | None = None
    #: The typed Latin word this alternative reads as pinyin (``jobpipe.text.pinyin``): searched
    #: only when that word matches no posting as typed (``keyword.prepare_concepts``); else None.
    romanizes: str | None = None


@dataclass
class Concept:
    label: str
    alternatives: list[Alternative] = field(default_factory=list)
    weight: float = 1.0    # scales the concept's IDF (a part of a longer query word counts less)
    #: At most this many of the alternatives' dictionary senses are searched (0: no choice to make).
    max_senses: int = 0
    #: The concept (its index) whose family of work this one's words name (``_add_family_members``).
    family_of: int | None = None


def _fold(text: str) -> str:
    # Traditional characters as simplified ones, as ``tokenize`` reads them: the job vocabulary,
    # the dictionary and the postings' terms are all keyed by the simplified forms.
    return to_simplified(unicodedata.normalize("NFKC", text).lower())


@functools.lru_cache(maxsize=2)
def _term_groups(skills: bool = True) -> dict[str, tuple[str, ...]]:
    """term -> every term of its group (job vocabulary + city names in both languages + skill names).

    ``skills=False``: without the skill taxonomy's groups. A skill's names are broader than a
    translation (猎头 is one name of Recruiting), so they never stand in for the dictionary's senses.
    """
    text = resources.files("jobpipe.search").joinpath("data/job_terms.txt").read_text(encoding="utf-8")
    groups: list[list[str]] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            groups.append([_fold(t.strip()) for t in line.split("|") if t.strip()])
    by_city: dict[str, list[str]] = {}
    for alias, city in bilingual_city_names().items():
        by_city.setdefault(city, [city.lower()]).append(alias)
    groups.extend(by_city.values())
    if skills and SKILL_GROUPS:
        # The skill taxonomy's names of one skill, in both languages (智能合约 | smart contract,
        # 前端 | frontend): the normalizer tags postings with them, so they are the same concept.
        groups.extend(list(names) for names in skill_synonyms().values() if len(names) > 1)
    index: dict[str, set[str]] = {}
    for group in groups:
        for term in group:
            index.setdefault(term, set()).update(group)
    return {term: tuple(sorted(members)) for term, members in index.items()}


def _strip_words(text: str, words: list[str]) -> str:
    for word in sorted(set(words), key=len, reverse=True):
        if not word:
            continue
        if _CJK_CHAR.search(word):
            text = text.replace(word, " ")
        else:
            text = re.sub(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", " ", text)
    return text


def filter_words(filters: SearchFilters) -> list[str]:
    """Query words that only restate an active filter."""
    words: list[str] = []
    if filters.city:
        city = resolve_city(filters.city)
        words.append(_fold(filters.city))
        if city:
            words.extend(_fold(a) for a in city_aliases(city))
    if filters.job_type:
        words.extend(_JOB_TYPE_WORDS.get(filters.job_type, ()))
    if filters.remote:
        words.extend(_REMOTE_WORDS)
    return words


@functools.lru_cache(maxsize=1)
def _matchers() -> tuple[tuple[str, re.Pattern[str] | None], ...]:
    """Dictionary terms, longest first, each with its whole-word pattern (None for Chinese)."""
    out = []
    for term in sorted(_term_groups(), key=lambda t: (-len(t), t)):
        if len(term) < 2:
            continue
        pattern = None if _CJK_CHAR.search(term) else re.compile(rf"(?<![a-z0-9]){re.escape(term)}(?![a-z0-9+#])")
        out.append((term, pattern))
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _matcher_index() -> dict[str, tuple[int, ...]]:
    """The positions in ``_matchers()`` of the terms starting with each pair of characters."""
    index: dict[str, list[int]] = {}
    for i, (term, _) in enumerate(_matchers()):
        index.setdefault(term[:2], []).append(i)
    return {pair: tuple(ids) for pair, ids in index.items()}


def _dictionary_matches(text: str) -> list[str]:
    """Dictionary terms in ``text``, longest first, never two overlapping.

    Chinese terms match as substrings (jieba may split a term the list knows, e.g. 后端);
    Latin terms match whole words. Only the terms starting with a pair of characters the text
    has are tried (every term has two or more), in the list's order: testing each of the
    thousands of terms cost ~1.3 ms a query.
    """
    matchers = _matchers()
    index = _matcher_index()
    tried = sorted({i for pair in {text[j:j + 2] for j in range(len(text) - 1)} for i in index.get(pair, ())})
    taken = [False] * len(text)
    found: list[str] = []
    for term, pattern in (matchers[i] for i in tried):
        if term not in text:
            continue
        spans = ([(m.start(), m.end()) for m in pattern.finditer(text)] if pattern is not None
                 else [(i, i + len(term)) for i in _find_all(text, term)])
        for start, end in spans:
            if not any(taken[start:end]):
                for i in range(start, end):
                    taken[i] = True
                if term not in found:
                    found.append(term)
    return found


def _find_all(text: str, term: str) -> list[int]:
    positions, start = [], text.find(term)
    while start >= 0:
        positions.append(start)
        start = text.find(term, start + 1)
    return positions


#: Singular words that end in "s": never singularized by dropping it (class, campus, analysis, various).
_SINGULAR_S = ("ss", "us", "is", "ous")
#: Words no plural is made of: participles and adjectives (satisfied, careful, wireless, stylish, various).
_NO_PLURAL = ("ed", "ful", "less", "ish", "ous")


def _english_variants(token: str) -> list[str]:
    """The other number of an English word: its plural, or its singular(s) when it is a plural.

    Postings are indexed word for word (no stemmer), so "branch" must also look up "branches".
    Where the spelling cannot tell ("caches": cache or cach; "movies": movie or movy), both forms
    are looked up: a form no posting has finds nothing.
    """
    if not token.isascii() or not token.isalpha() or len(token) < 4:
        return []
    if token.endswith("ies") and len(token) > 4:
        return [token[:-3] + "y", token[:-1]]                 # companies -> company; movies -> movie
    if token.endswith("sses"):
        return [token[:-2]]                                    # classes -> class
    if token.endswith(("ches", "shes", "xes", "uses")):
        return [token[:-2], token[:-1]]                        # branches -> branch; caches -> cache
    if token.endswith("ses"):
        return [token[:-1], token[:-2] + "is"]                 # courses -> course; analyses -> analysis
    if token.endswith("s") and not token.endswith(_SINGULAR_S):
        return [token[:-1]]                                    # engineers -> engineer
    if token.endswith(_NO_PLURAL) and not token.endswith("eed"):
        return []
    if token.endswith("y") and token[-2] not in "aeiou":
        return [token[:-1] + "ies"]                            # company -> companies (survey -> surveys)
    if token.endswith("is"):
        return [token[:-2] + "es"]                             # analysis -> analyses
    if token.endswith(("s", "x", "z", "ch", "sh")):
        return [token + "es"]                                  # branch -> branches, campus -> campuses
    return [token + "s"]


_K_RANGE = re.compile(r"^(\d{1,3})k?-(\d{1,3})k$")          # 20-30k, 20k-30k
_FULL_RANGE = re.compile(r"^([1-9]\d{0,2})000-([1-9]\d{0,2})000$")   # 20000-30000
_K_AMOUNT = re.compile(r"^(\d{1,3})k$")                        # 25k
_FULL_AMOUNT = re.compile(r"^([1-9]\d{0,2})000$")              # 25000
_YEAR = re.compile(r"^20([1-4]\d)$")                           # 2025


def _number_forms(token: str, text: str) -> list[str]:
    """The other ways postings write an amount or a graduate cohort the query states.

    A posting's "20000-30000 RMB" and a query's "20-30k" share no token (the tokenizer keeps a
    range whole), nor do "2025 graduates" and a Chinese campus posting's "25届": the number the
    question states was then the one word that could tell two sibling postings apart, and it
    matched neither. Thousands are written out or as k; a year 20NN is also the cohort NN届,
    and a Chinese query's NN届 also the year.
    """
    out: list[str] = []
    if m := _K_RANGE.match(token):
        a, b = m.groups()
        out += [f"{a}000-{b}000", f"{a}k-{b}k", f"{a}-{b}k"]
    elif m := _FULL_RANGE.match(token):
        a, b = m.groups()
        out += [f"{a}-{b}k", f"{a}k-{b}k"]
    elif m := _K_AMOUNT.match(token):
        out.append(f"{m.group(1)}000")
    elif m := _FULL_AMOUNT.match(token):
        out.append(f"{m.group(1)}k")
    elif m := _YEAR.match(token):
        out.append(f"{m.group(1)}届")
    elif token.isdigit() and len(token) == 2 and f"{token}届" in text:
        out.append(f"20{token}")
    return [form for form in dict.fromkeys(out) if form != token]


def _english_lemmas(word: str) -> list[str]:
    """Base forms of an inflected English word, most likely first (robots -> robot, tagging -> tag).

    The dictionary's senses are base forms ("robot", "label"), while a query says "robots",
    "labeling": looked up as typed, every plural and -ing/-ed form had no translation.
    """
    if not word.isascii() or not word.isalpha() or len(word) < 4:
        return []
    out: list[str] = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    elif word.endswith(("ches", "shes", "sses", "xes")):
        out.append(word[:-2])
    elif word.endswith("s") and not word.endswith("ss"):
        out.append(word[:-1])
    for suffix in ("ing", "ed"):
        stem = word[:-len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3:
            out.append(stem)                      # labeling -> label, streamed -> stream
            if len(stem) >= 4 and stem[-1] == stem[-2]:
                out.append(stem[:-1])             # tagging -> tag
            out.append(stem + "e")                # pricing -> price
    return out


def _translations(token: str) -> tuple[list[tuple[str, str | None]], int]:
    """The dictionary's words for a query word in the other language, inflections included.

    Returns (word, sense) pairs and how many of the senses to search: a Chinese word's
    dictionary senses (up to ``STORED_SENSES``) are choices, of which the keyword leg searches
    ``MAX_GLOSSES``: the first and the ones its catalogue uses most (``keyword._chosen_senses``).
    A compound read from its words has no senses to choose among (sense None, all kept), nor
    has an English word: its first ``MAX_HEADWORDS`` headwords are kept (choosing those by use
    too lost English-to-Chinese queries, 2026-12-03). An English word is looked up as typed, else by its base
    form (dictionary senses are base forms); a hyphenated one also as separate words
    ("live-streaming" -> "live streaming"). Single English glosses of a Chinese word get their
    singular/plural too, as the typed word does: "investigation" must also find a posting
    titled "Investigations".
    """
    if _CJK_CHAR.search(token):
        senses = english_senses(token)
        out: list[tuple[str, str | None]] = []
        for gloss in senses or _composed_glosses(token):
            sense = gloss if senses else None
            out.append((gloss, sense))
            if " " not in gloss:
                out.extend((v, sense) for v in _english_variants(gloss))
        return list(dict.fromkeys(out)), MAX_GLOSSES if senses else 0
    forms = [token]
    if "-" in token:
        forms.append(token.replace("-", " "))
    for form in forms + _english_lemmas(token):
        heads = chinese_senses(form)
        if heads:
            return [(h, None) for h in heads[:MAX_HEADWORDS]], 0
    return [], 0


def _curated_english(word: str) -> tuple[str, ...]:
    """The curated terms' English for a Chinese word (empty when they do not list it)."""
    return tuple(t for t in _term_groups(skills=False).get(word, ()) if not _CJK_CHAR.search(t))


def _word_glosses(word: str) -> tuple[str, ...]:
    """English for one Chinese dictionary word: the curated terms' first, else the dictionary's."""
    return _curated_english(word) or english_for(word)


def _composed_glosses(word: str) -> tuple[str, ...]:
    """English for a Chinese compound no dictionary lists, from the words it is made of.

    jieba keeps compounds whole (谷歌云, 金融服务, 法律顾问, 技术培训, 合同制) that neither the curated
    terms nor CC-CEDICT list. Untranslated, such a word can only match postings in Chinese, and
    as the query's rarest word (highest IDF) it lifted every same-language posting above the
    English one a cross-lingual question asks for. Read left to right as the longest known words
    (a lone character only when the curated terms list it: 云 | cloud), it becomes
    those words' senses side by side ("financial service", "google cloud"); the last word also
    in its other number (postings say "Financial Services"). At most one leftover character may
    stay unread (制 in 合同制, 度 in 满意度: a suffix); anything less covered is a name
    (阿斯利康), whose characters' senses say nothing.
    """
    parts: list[tuple[str, ...]] = []
    unread, i = 0, 0
    while i < len(word):
        for j in range(len(word), i, -1):
            part = word[i:j]
            # A lone character only as the curated terms read it (云 | cloud): the dictionary
            # lists a dozen senses for most.
            glosses = (() if len(part) == len(word) else _word_glosses(part) if len(part) > 1
                       else _curated_english(part))
            if glosses:
                parts.append(glosses)
                i = j
                break
        else:
            unread += 1
            i += 1
    if not parts or unread > 1 or (len(parts) == 1 and unread == 0):
        return ()
    options = [p[:2] for p in parts]
    # Every part's first sense first: the combinations in order of how far from it they stray.
    combos = sorted(itertools.product(*(range(len(o)) for o in options)), key=lambda c: (sum(c), c))
    out: list[str] = []
    for combo in combos:
        words = [o[k] for o, k in zip(options, combo)]
        out.append(" ".join(words))
        if " " not in words[-1]:
            out.extend(" ".join(words[:-1] + [v]) for v in _english_variants(words[-1])[:1])
    return tuple(dict.fromkeys(out))[:MAX_COMPOSED]


def _add_translations(concept: Concept, token: str) -> None:
    """The other language's words for ``token``: a city's names, else the dictionary's.

    The curated job terms come first (already added); a word they translate gets no dictionary
    senses on top (a curated group is what a recruiter means; the dictionary lists every sense).
    """
    known = {a.text for a in concept.alternatives}
    city = resolve_city(token)
    if city is not None and token in {_fold(a) for a in city_aliases(city)}:
        for alias in city_aliases(city):
            for word in (_fold(alias),):
                if word not in known:
                    concept.alternatives.append(Alternative(word, TRANSLATION_WEIGHT))
                    known.add(word)
        # The dictionary knows the other places of that name: 圣地亚哥 is Santiago in the city
        # table, and San Diego too.
        if _CJK_CHAR.search(token):
            _add_senses(concept, known, *_translations(token))
        return
    if len(known) > 1 and any(t != token for t in _term_groups(skills=False).get(token, ())):
        return
    _add_senses(concept, known, *_translations(token))


def _add_senses(concept: Concept, known: set[str], words: list[tuple[str, str | None]], limit: int) -> None:
    for word, sense in words:
        if word not in known:
            concept.alternatives.append(Alternative(word, DICTIONARY_WEIGHT, sense))
            known.add(word)
    if limit:
        concept.max_senses = limit


def _latin_phrases(tokens: list[str]) -> list[str]:
    """Runs of 2..MAX_PHRASE_WORDS consecutive Latin tokens ("product manager", "real estate")."""
    out = []
    for n in range(MAX_PHRASE_WORDS, 1, -1):
        for i in range(len(tokens) - n + 1):
            run = tokens[i:i + n]
            if all(t.isascii() and t.isalpha() for t in run):
                out.append(" ".join(run))
    return out


def query_concepts(query: str, filters: SearchFilters = SearchFilters(), levels: Sequence[str] = ()) -> list[Concept]:
    """The weighted concepts the keyword leg scores postings on (empty when nothing is left).

    ``levels``: the seniority levels the ranking prefers (``Understood.seniority_levels``).
    """
    text = _strip_words(_fold(query), filter_words(filters))
    concepts: list[Concept] = []
    seen: set[str] = set()
    tokens = tokenize(text)
    informative = [t for t in tokens if not (len(t) == 1 and _CJK_CHAR.match(t))]
    # A hyphen between words also reads as a space: "big-data", "machine-learning" are the
    # list's "big data", "machine learning" (terms listed with a hyphen still match as typed).
    spaced = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text)
    matches = list(dict.fromkeys(_dictionary_matches(text) + (_dictionary_matches(spaced) if spaced != text else [])))
    words = informative + [m for m in matches if _CJK_CHAR.search(m)]
    nested = {t for t in informative if _CJK_CHAR.search(t) and any(t != o and t in o for o in words)}
    for token in informative or tokens:
        # A lone Chinese character (jieba's leftovers: 要, 做, 后) matches everything.
        if token in seen or token in _QUERY_STOP:
            continue
        seen.add(token)
        concept = Concept(token, [Alternative(token, 1.0)], SUBWORD_WEIGHT if token in nested else 1.0)
        for variant in _english_variants(token) + _number_forms(token, text):
            concept.alternatives.append(Alternative(variant, VARIANT_WEIGHT))
        skill = canonical_skill(token)
        if skill and _fold(skill) != token:
            concept.alternatives.append(Alternative(_fold(skill), VARIANT_WEIGHT))
        concept.alternatives.extend(
            Alternative(t, TRANSLATION_WEIGHT) for t in _term_groups().get(token, ()) if t != token
        )
        _add_translations(concept, token)
        if token.isascii() and token.isalpha() and may_be_pinyin(token):
            # "lianjia" as the pinyin of 链家 in a posting's title or company, if no posting has it as typed.
            concept.alternatives.append(Alternative(marked(token), VARIANT_WEIGHT, romanizes=token))
        concepts.append(concept)
    groups = _term_groups()
    by_label = {c.label: c for c in concepts}
    for phrase in _latin_phrases(tokens):
        head, _, last = phrase.rpartition(" ")
        heads = next((h for h in (chinese_for(f) for f in [phrase] + [f"{head} {b}" for b in _english_lemmas(last)]) if h), ())
        if heads and phrase not in by_label:
            concept = Concept(phrase, [Alternative(phrase, 1.0)])
            concept.alternatives.extend(Alternative(h, DICTIONARY_WEIGHT) for h in heads)
            concepts.append(concept)
            by_label[phrase] = concept
    for term in matches:
        others = [t for t in groups[term] if t != term]
        if not others:
            continue
        # A term that is one query word widens that word's concept (also the hyphenated word:
        # "big-data" is "big data"); a longer term (a phrase, or a Chinese word jieba splits)
        # is a concept of its own.
        widened = by_label.get(term) or by_label.get(term.replace(" ", "-"))
        if widened is None:
            widened = Concept(term, [Alternative(term, 1.0)])
            concepts.append(widened)
            by_label[term] = widened
        known = {a.text for a in widened.alternatives}
        if term not in known:
            widened.alternatives.append(Alternative(term, VARIANT_WEIGHT))
            known.add(term)
        widened.alternatives.extend(Alternative(t, TRANSLATION_WEIGHT) for t in others if t not in known)
    _drop_part_translations(concepts)
    if FAMILY_TERMS:
        _add_family_members(concepts)
    if LEVEL_TERMS and len(levels) > 2:
        _add_implied_levels(concepts, levels)
    for concept in concepts:
        # One lookup per distinct word: a skill's canonical name can also be in its term group.
        best: dict[str, Alternative] = {}
        for alt in concept.alternatives:
            if alt.text not in best or alt.weight > best[alt.text].weight:
                best[alt.text] = alt
        concept.alternatives = [best[t] for t in dict.fromkeys(a.text for a in concept.alternatives)]
    return concepts


def _add_family_members(concepts: list[Concept]) -> None:
    """A concept of the tools' names for each query word that names a family of work.

    "智能合约工程师" also finds "Solidity Engineer", "前端开发" a posting that only lists Vue. The
    names are those that always mean the skill (``skill_synonyms``: not "Move" or "Gin", which
    are ordinary words too). A concept of its own rather than more alternatives of the word:
    naming a tool is weaker evidence than naming the work, so it scores ``FAMILY_WEIGHT`` of
    the word's IDF (or less, when the tools together are common: ``prepare_concepts``), and
    its lookups spend a row budget of their own, never the one the typed words need
    (``keyword.FAMILY_ROW_BUDGET``). Widening the word itself, or sharing its budget, lost
    known items: "BI backend" then matched every posting naming Spring or Tableau at full
    weight, and the tools' lookups left out the typed word's (docs/search.md).
    """
    synonyms = skill_synonyms()
    for ci, concept in enumerate(list(concepts)):
        skill = canonical_skill(concept.label)
        members = sorted(counts_for(skill) - {skill}) if skill else []
        known = {a.text for c in concepts for a in c.alternatives}
        names = [n for m in members for n in synonyms.get(m, ()) if n not in known]
        if names:
            concepts.append(Concept(f"{concept.label} (family)", [Alternative(n, 1.0) for n in dict.fromkeys(names)],
                                    concept.weight * FAMILY_WEIGHT, family_of=ci))


def _add_implied_levels(concepts: list[Concept], levels: Sequence[str]) -> None:
    """A concept for each level of ``levels`` that the query's words do not name, as a family's tools are.

    Only a range implies levels ("lead or principal": staff; "senior to staff": lead): it is tied
    to the first concept naming one of the range's ends, so it scores at most ``FAMILY_WEIGHT`` of
    that word's IDF and its lookups spend the family budget, never the typed words' one. Its
    words are the level's name and those of its translations the normalizer reads as that level.
    """
    named: dict[str, int] = {}
    for ci, concept in enumerate(concepts):
        level = parse_seniority(concept.label) if concept.family_of is None else None
        if level is not None and level in levels:
            named.setdefault(level, ci)
    if len(named) < 2:
        return
    anchor = min(named.values())
    known = {a.text for c in concepts for a in c.alternatives}
    groups = _term_groups(skills=False)
    for level in levels:
        if level in named or level in known:
            continue
        # Only words the normalizer reads as this very level: the vocabulary groups "staff" with
        # "senior" and "lead" with "head", which are other levels.
        words = [w for w in dict.fromkeys((level, *groups.get(level, ())))
                 if w not in known and parse_seniority(w) == level]
        if words:
            concepts.append(Concept(f"{level} (level)", [Alternative(w, 1.0) for w in words],
                                    concepts[anchor].weight * FAMILY_WEIGHT, family_of=anchor))


def _drop_part_translations(concepts: list[Concept]) -> None:
    """A part of a place name in the query keeps only translations that are part of the name's.

    Names do not compose: 都柏林 is Dublin, its part 柏林 is Berlin; 圣地亚哥 is San Diego, its
    part 圣地 a "holy land". The part as typed still matches Chinese postings that contain it, but
    its translations would only find unrelated postings in the other language. Only names (the
    normalizer's city table) are cut this way: other words mostly compose, and where they do not
    quite (世界各地 is "everywhere", a posting says "around the world") the part's sense still helps.
    """
    for part in concepts:
        if not _CJK_CHAR.search(part.label):
            continue
        wholes = [c for c in concepts if c is not part and part.label in c.label and len(c.label) > len(part.label)
                  and resolve_city(c.label) is not None]
        whole_words = {w for c in wholes for a in c.alternatives[1:] if not _CJK_CHAR.search(a.text)
                       for w in a.text.split()}
        if not whole_words:
            continue   # the whole has no translation: the parts' are the only bridge
        part.alternatives = [a for a in part.alternatives if _CJK_CHAR.search(a.text)
                             or all(any(_same_stem(w, x) for x in whole_words) for w in a.text.split())]


def _same_stem(a: str, b: str) -> bool:
    """Whether two English words are forms of one word (learn/learning, science/scientist)."""
    if a == b:
        return True
    shared = len(os.path.commonprefix([a, b]))
    return shared >= max(4, min(len(a), len(b)) - 2)

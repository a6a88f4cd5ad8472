"""Employment type and seniority from the source's type field and the title.

The type field is often generic ("全职" on a bilibili internship, "Full-time" on a "2027届校招"
role), so the title decides when it names a more specific kind: an intern title wins over a
generic full-time type, and a campus-hiring title (校招, 应届, 20XX届, new grad) wins too.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import ahocorasick_rs

from jobpipe.normalize.regex_guard import guarded
from jobpipe.normalize.statements import labelled_lines

JOB_TYPES = ("full_time", "part_time", "intern", "campus", "contract")

_INTERN = re.compile(r"实习|實習|\bintern(ship)?s?\b|\bco-?op\b|\btrainee\b|\bINTERN\b", re.I)
#: 应届/毕业生 is campus hiring unless graduates are merely welcome on a regular job ("应届毕业生优先",
#: "应届/社招均可", "接受应届生").
_WELCOME_BEFORE = r"(?<!接受)(?<!欢迎)(?<!可招)(?<!招收)"
_WELCOME_AFTER = r"(?![^，,。；;\n]{0,6}?(?:优先|亦可|也可|可投|均可|欢迎|可以))"
_CAMPUS = re.compile(r"校招|校园招聘|校園招聘|" + _WELCOME_BEFORE + r"(?:应届|應屆|毕业生|畢業生|(?<!应)(?<!應)届毕业)" + _WELCOME_AFTER
                     + r"|管培生|\b20\d\d\s*届|\d{2}届|"
                     r"\bnew[ -]?grad(?:uate)?s?\b|\bgraduate program\b|\bcampus\b|\bentry[- ]level graduate\b|\buniversity grad", re.I)
_PART = re.compile(r"兼职|兼職|\bpart[- ]?time\b|\bPART_TIME\b|\bper[- ]diem\b", re.I)
_CONTRACT = re.compile(r"合同工|外包|劳务派遣|派遣|顾问制|临时|臨時|项目制|\bcontract(or|ual)?\b|\bCONTRACTOR\b|"
                       r"\btemporary\b|\btemp\b|\bfreelance(r)?\b|\bconsultant contract\b|\bseasonal\b|\bfixed[- ]term\b", re.I)
_FULL = re.compile(r"全职|全職|全/兼|全兼职|社招|社会招聘|正式员工|\bfull[- ]?time\b|\bFULL_TIME\b|\bpermanent\b|\bregular\b|\bfulltime\b", re.I)
_INTERN, _CAMPUS, _FULL, _PART, _CONTRACT = (guarded(p) for p in (_INTERN, _CAMPUS, _FULL, _PART, _CONTRACT))
_NEGATED_FULL = re.compile(r"否[，,\s]*兼职|非全职|是否全职\s*[:：]\s*否")


_TYPE_LINE = guarded(re.compile(r"(?:工作性质|工作性質|employment type|job type|岗位类型|职位类型)\s*[:：]?\s*([^\n]{1,30})", re.I))


# plain substring search (much faster than a regex alternation over a long description)
_DESCRIPTION_KIND = (("full-time", "full_time"), ("full time", "full_time"), ("part-time", "part_time"),
                     ("part time", "part_time"), ("internship", "intern"), ("全职", "full_time"), ("兼职岗", "part_time"))


#: Every match of a type pattern (and of ``_NEGATED_FULL``) holds one of these, lowercased.
_TYPE_CUES = (
    "实习", "實習", "intern", "co-op", "coop", "trainee", "校招", "校园招聘", "校園招聘", "应届", "應屆", "毕业生", "畢業生",
    "管培生", "届", "grad", "campus", "兼职", "兼職", "part", "diem", "合同工", "外包", "派遣", "顾问制", "临时", "臨時",
    "项目制", "contract", "temp", "freelance", "seasonal", "fixed", "全职", "全職", "全/兼", "全兼职", "社招", "社会招聘",
    "正式员工", "full", "permanent", "regular",
)


def _cue_automaton(cues: tuple[str, ...]) -> ahocorasick_rs.AhoCorasick:
    return ahocorasick_rs.AhoCorasick(list(cues), implementation=ahocorasick_rs.Implementation.DFA)


_TYPE_CUE_AUTOMATON = _cue_automaton(_TYPE_CUES)


def _has_cue(text: str, automaton: ahocorasick_rs.AhoCorasick) -> bool:
    """Whether ``text`` lowercased holds one of the automaton's cues, or may match without one.

    Why: the unions of case-insensitive word patterns are tried at nearly every letter of a Latin
    title (10-15 us a title), and most titles name no type and a third no seniority; one automaton
    pass over the lowercased title rules those out. Under IGNORECASE "ſ", "ı" and "İ" also match
    "s" and "i" while ``str.lower`` keeps them apart; a text holding one, or a lone surrogate (the
    automaton needs valid UTF-8), goes to the patterns.
    """
    low = text.lower()
    if not low.isascii() and ("ſ" in text or "ı" in text or "İ" in text):
        return True
    try:
        return bool(automaton.find_matches_as_indexes(low))
    except UnicodeEncodeError:
        return True


@lru_cache(maxsize=8192)
def _type_of(text: str) -> tuple[str, ...]:
    """Every type a text names, in precedence order for a type field.

    Cached: type fields and titles repeat across a source's postings. Most texts name no type at
    all, so a cue check comes before the per-type searches (most texts that hold a cue name a type:
    a search for any type first cost more than it saved).
    """
    if not _has_cue(text, _TYPE_CUE_AUTOMATON):
        return ()
    found: list[str] = []
    if _NEGATED_FULL.search(text):
        found.append("part_time")
    for kind, pattern in (("intern", _INTERN), ("campus", _CAMPUS), ("full_time", _FULL),
                          ("part_time", _PART), ("contract", _CONTRACT)):
        if pattern.search(text) and kind not in found:
            found.append(kind)
    return tuple(found)




def _one(kinds: tuple[str, ...]) -> str:
    """One type from several offered: a posting open to both full- and part-timers ("全/兼职",
    "全职、兼职", "Full-time or part-time") is kept as part_time, the option that sets it apart
    (every such posting also takes full-timers; few postings take part-timers)."""
    if "full_time" in kinds and "part_time" in kinds:
        return "part_time"
    return kinds[0]


def parse_job_type(employment_type: str | list[str] | None, title: str | None,
                   description: str | None = None, *, description_lower: str | None = None) -> str | None:
    """One of ``JOB_TYPES`` or None (see :func:`job_type_and_origin`)."""
    return job_type_and_origin(employment_type, title, description, description_lower=description_lower)[0]


def job_type_and_origin(employment_type: str | list[str] | None, title: str | None,
                        description: str | None = None, *,
                        description_lower: str | None = None) -> tuple[str | None, str | None]:
    """(one of ``JOB_TYPES`` or None, where it was read: "title" | "source_field" | "description").

    Title first for intern/campus (the most specific signals), then the type field (first listed
    kind; part_time when both full- and part-time are offered, see ``_one``), then the title's
    other words, then an explicit type line or phrase in the description as a last resort.
    ``description_lower`` is ``description.lower()`` when the caller has it already.
    """
    title_text = unicodedata.normalize("NFKC", title or "")
    title_types = _type_of(title_text)
    for kind in ("intern", "campus"):
        if kind in title_types:
            return kind, "title"
    values = employment_type if isinstance(employment_type, list) else [employment_type] if employment_type else []
    # "fulltime_permanent", "FULL_TIME": an ATS code's underscores separate its words
    field_text = " / ".join(unicodedata.normalize("NFKC", str(v)).replace("_", " ") for v in values if v is not None)
    field_types = _type_of(field_text)
    if field_types:
        return _one(field_types), "source_field"
    if title_types:
        return title_types[0], "title"
    if description:
        found = _description_type(description, description_lower)
        return found, ("description" if found else None)
    return None, None


#: A labelled type value that says nothing yet ("Full-time or not: negotiable", "是否全职：最好").
_UNSURE_VALUE = re.compile(r"negotiable|depends|tbd|协商|商量|面议|可谈|详谈|最好|看情况|视情况|待定", re.I)
_YES_VALUE = re.compile(r"^\s*(?:是|yes|y)(?![a-z])", re.I)
_NO_VALUE = re.compile(r"^\s*(?:否|no)(?![a-z])", re.I)
#: Sentences that state this job's type (lowercased text); bare mentions do not ("benefits for
#: full-time employees", "a full-time MBA program", "有实习经验优先", "smart contract").
_TYPE_SENTENCES = guarded(re.compile(
    r"\b(?:this|it) (?:is )?an? (?P<a>full|part)[- ]?time(?: \([^)]{1,20}\))?(?:,? [a-z-]+){0,2}? (?:position|role|job|opportunity)\b"
    r"|\b(?:seeking|looking for|hiring|to hire|in search of) an? (?P<b>full|part)[- ]?time\b"
    r"|\b(?:on|in) an? (?P<e>full|part)[- ]?time basis\b"
    r"|\bwork(?:ing)? (?P<d>full|part)[- ]?time (?:on|for|at|in|with|out)\b"
    r"|\b(?P<c>full|part)[- ]?time,? (?:exempt|non-exempt|direct[- ]hire|permanent|salaried|w-?2|position|role|job|opportunity)\b"
    r"|(?P<contract>\bcontract (?:role|position|job|opportunity|assignment|engagement)\b"
    r"|\b(?:this|the) (?:role|position|job) is an? (?:contract|temporary|fixed[- ]term)\b|\bfixed[- ]term contract\b"
    r"|\bcontract[- ]to[- ]hire\b)"
    r"|(?P<zh_full>诚聘全职|全职岗位|全职职位|兼职勿扰|不招兼职|不接受兼职)|(?P<zh_part>兼职岗位|兼职职位|招聘兼职)"
))
#: A line that holds nothing but a type ("Full-time" under a "Job Type" heading of a list).
_TYPE_ALONE = guarded(re.compile(r"(?:^|\n)[ \t]*(?:[-*•·][ \t]*)?(full[- ]?time|part[- ]?time|全职|兼职|internship|contract|"
                                 r"permanent|temporary)[ \t]*(?=\n|$)", re.I))


def _description_type(description: str, lower: str | None) -> str | None:
    """The type a description states: a labelled line ("Job Type: Full-time", "是否全职：是", anywhere
    in the text: ATS exports put it last), a sentence about the job ("This is a full-time position",
    "-Contract Role in Atlanta", "诚聘全职岗位，兼职勿扰"), or a line holding only a type word."""
    for value in labelled_lines(description).get("type"):
        if _UNSURE_VALUE.search(value):
            return None
        kinds = _type_of(unicodedata.normalize("NFKC", value).replace("_", " "))
        if _YES_VALUE.match(value):        # "是否全职：是", "是（也可兼职）"
            kinds = ("full_time", *kinds)
        elif _NO_VALUE.match(value) and not kinds:
            return "part_time"
        if kinds:
            return _one(kinds)
    low = lower if lower is not None and len(lower) == len(description) else description.lower()
    m = _TYPE_SENTENCES.search(low[:20000])
    if m is not None:
        word = m.group("a") or m.group("b") or m.group("c") or m.group("d") or m.group("e")
        if word:
            return "full_time" if word == "full" else "part_time"
        if m.group("contract"):
            return "contract"
        return "full_time" if m.group("zh_full") else "part_time"
    m = _TYPE_ALONE.search(description[:20000])
    if m is not None:
        kinds = _type_of(m.group(1))
        if kinds:
            return _one(kinds)
    return None


def _w(word: str) -> str:
    """A Latin word that may touch Chinese characters ("Senior量化交易工程师"): ``\b`` sees no
    boundary between two word characters, so the boundary is "no Latin letter or digit"."""
    return rf"(?<![A-Za-z0-9]){word}(?![A-Za-z0-9])"


_SENIORITY: list[tuple[str, re.Pattern[str]]] = [
    ("intern", re.compile(rf"实习|實習|{_w('intern(?:ship)?')}", re.I)),
    ("director", re.compile(rf"总监|總監|总经理|總經理|副总裁|{_w('director')}|{_w('head')}(?!\s*(?:count|hunter|quarters?|set|phone))|"
                            rf"{_w('VP')}|vice president|{_w('CTO')}|{_w('CEO')}|{_w('COO')}|{_w('CFO')}|{_w('chief')}", re.I)),
    ("principal", re.compile(rf"首席|{_w('principal')}|{_w('distinguished')}|{_w('fellow')}", re.I)),
    ("staff", re.compile(rf"专家|專家|架构师|架構師|构架师|{_w('staff')}|{_w('expert')}|{_w('architect')}", re.I)),
    ("manager", re.compile(rf"经理|經理|主管|负责人|負責人|{_w('manager')}|{_w('mgr')}", re.I)),
    ("lead", re.compile(rf"组长|組長|主美|主策|主程|{_w('lead')}|{_w('leader')}|{_w('tech lead')}|{_w('team lead')}", re.I)),
    ("senior", re.compile(rf"高级|高級|资深|資深|{_w('senior')}|{_w('sr')}\.?(?=\s|$|[^A-Za-z])|{_w('III')}|{_w('IV')}", re.I)),
    ("junior", re.compile(rf"初级|初級|助理|应届|應屆|管培生|管理培训生|校招|校园招聘|{_w('junior')}|{_w('jr')}\.?(?=\s|$|[^A-Za-z])|"
                          rf"{_w('entry[- ]level')}|{_w('associate')}|{_w('graduate')}|{_w('management trainee')}|\bI\b(?!\s*/)", re.I)),
    ("mid", re.compile(rf"中级|中級|{_w('mid(?:-level)?')}|{_w('intermediate')}|{_w('II')}", re.I)),
]
SENIORITIES = tuple(name for name, _ in _SENIORITY)


_SENIORITY = [(name, guarded(p)) for name, p in _SENIORITY]

#: Title words that look like a level and are not one: job families whose "Manager" manages a
#: product, a project, an account or data, not people; "Member of Technical Staff", a "Staff
#: Accountant" (an entry-level accountant), a "Mid-Market" segment. Removed before the levels are read.
_NOT_A_LEVEL = guarded(re.compile(
    rf"(?<![A-Za-z])(?:product|project|program(?:me)?|account|data|customer success|office|case|category)[\s-]+{_w('manager')}"
    rf"|产品经理|項目經理|项目经理|客户经理|客戶經理|"
    rf"{_w('member of (?:the )?technical staff')}|{_w('staff (?:accountant|nurse|writer)')}|{_w('mid[- ]?(?:market|size|sized)')}",
    re.I,
))
_ASSISTANT_TO = re.compile(r"(?:副?总经理|总裁|董事长|总监|经理|CEO|ceo)\s*(?:助理|秘书)")
#: A level number after the role ("Data Scientist 3", "Engineer 2"): 1 junior, 2 mid, 3 senior.
_LEVEL_NUMBER = guarded(re.compile(
    r"(?<![A-Za-z])(?:engineer|scientist|analyst|developer|designer|specialist|accountant|consultant|administrator|"
    r"programmer|technician)\s+(?:level\s+)?([1-3])(?![\d.])",
    re.I,
))


#: Every match of a seniority pattern holds one of these, lowercased, or is a lone "I" (``_LONE_I``).
_SENIORITY_CUES = (
    "实习", "實習", "intern", "总监", "總監", "总经理", "總經理", "director", "head", "vp", "vice president", "副总裁", "cto",
    "ceo", "coo", "cfo", "chief", "首席", "principal", "distinguished", "fellow", "staff", "专家", "專家", "expert", "架构师",
    "架構師", "构架师", "architect", "经理", "經理", "主管", "负责人", "負責人", "manager", "mgr", "lead", "组长", "組長",
    "主美", "主策", "主程", "高级", "高級", "资深", "資深", "senior", "sr", "iii", "iv", "初级", "初級", "助理", "junior", "jr",
    "entry", "associate", "graduate", "应届", "應屆", "管培生", "管理培训生", "校招", "校园招聘", "management trainee", "中级",
    "中級", "mid", "intermediate", "ii",
)
_SENIORITY_CUE_AUTOMATON = _cue_automaton(_SENIORITY_CUES)
#: ``\bI\b`` without IGNORECASE ("ı" and "İ" are left to ``_has_cue``), spelled to start with the
#: letter so re jumps from one "I"/"i" to the next.
_LONE_I = re.compile(r"[Ii](?<!\w[Ii])(?!\w)")


@lru_cache(maxsize=8192)
def parse_seniority(title: str | None) -> str | None:
    """The seniority a title states (most senior signal wins, interns first), else None.

    Cached (titles repeat); a cue check first, since most titles state none (most titles that
    hold a cue state one: a search for any seniority word first cost more than it saved).
    """
    if not title:
        return None
    text = unicodedata.normalize("NFKC", title)
    if not (_has_cue(text, _SENIORITY_CUE_AUTOMATON) or _LONE_I.search(text)):
        return _level_number(text)
    text = _NOT_A_LEVEL.sub(" ", text)
    if "助理" in text or "秘书" in text:
        text = _ASSISTANT_TO.sub("助理", text)   # 总经理助理 assists a general manager
    for name, pattern in _SENIORITY:
        if pattern.search(text):
            return name
    return _level_number(text)


def _level_number(text: str) -> str | None:
    m = _LEVEL_NUMBER.search(text) if any(ch in text for ch in "123") else None
    return None if m is None else {"1": "junior", "2": "mid", "3": "senior"}[m.group(1)]

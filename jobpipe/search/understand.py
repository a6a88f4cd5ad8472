"""What a free-text question states: city, job type, remote, pay, freshness, posting dates, skills, level.

"深圳的 AI Agent 实习，薪资多少" asks for internships in Shenzhen; "remote Go jobs paying over
$150k" for fully remote jobs whose pay reaches 150k USD a year. :func:`understand` finds those
statements and the span of the query each came from, so a caller (or ``search(auto_filters=True)``)
can turn them into filters and a person can see what was read.

The vocabulary is the normalizer's, never a second copy: a city is what
``jobpipe.normalize.resolve_locations`` reads in the query (plus lower-case spellings of the
curated cities, which a query writes and a posting's location field rarely does), the job type
is ``parse_job_type`` of the query read as a title, remote is the location parser's mode, pay is
``parse_salary`` of the span that states it, seniority is ``parse_seniority``, skills are
``extract_skills`` / ``canonical_skill``. This module only finds *where* each statement is and
what it means as a request ("30k以上" is a minimum, "8000U以内" a maximum, which no filter takes).

Spans never overlap: a longer statement wins ("smart contract" is a skill, so its "contract" is
not a job type; "3年以上" is experience, so it is not pay).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timezone
from typing import Any, Generic, TypeVar

import rjieba
from pydantic import BaseModel, ConfigDict, Field

from jobpipe.models import Salary
from jobpipe.normalize import (
    annualize,
    city_aliases,
    extract_skills,
    known_cities,
    parse_experience,
    parse_job_type,
    parse_salary,
    parse_seniority,
    resolve_locations,
)
from jobpipe.normalize.job_type import JOB_TYPES
from jobpipe.normalize.posting import COUNTRY_CURRENCY
from jobpipe.normalize.skills import case_sensitive_aliases
from jobpipe.search.posted_dates import find_dates
from jobpipe.search.resolve import canonical_skill as cached_skill
from jobpipe.search.resolve import resolve_city as cached_city
from jobpipe.search.translate import english_senses
from jobpipe.search.types import SearchFilters, known_currencies

V = TypeVar("V")

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
#: Query pieces: Latin words (keeping c++, c#, node.js, 30k) and CJK runs (segmented by jieba).
_LATIN_WORD = re.compile(r"[A-Za-z0-9$][A-Za-z0-9+#.'\-]*[A-Za-z0-9+#]|[A-Za-z0-9]")


class Found(BaseModel, Generic[V]):
    """One statement of the query: what it means and where it is (``query[start:end] == text``)."""

    model_config = ConfigDict(frozen=True)

    value: V
    text: str = Field(..., description="The words of the query this came from.")
    start: int = Field(..., ge=0, description="Offset of the first character in the query.")
    end: int = Field(..., ge=0, description="Offset after the last character.")


class Excluded(BaseModel):
    """A statement the query rules out ("不要外包", "no internships", "except Beijing")."""

    model_config = ConfigDict(frozen=True)

    field: str = Field(..., description="city | job_type | skills | seniority")
    value: str = Field(..., description="What is ruled out, as the field's value (canonical city, job type, skill).")
    text: str = Field(..., description="The words of the query, with the words that negate it.")
    start: int = Field(..., ge=0)
    end: int = Field(..., ge=0)


#: The levels of one career track, junior to principal (the normalizer's names): a query naming
#: two of them asks for the levels between too. A manager or a director is on another track.
LADDER = ("junior", "mid", "senior", "lead", "staff", "principal")


#: The single-valued statements, in the order a reader is shown them; those the filter spec has
#: fields for are filters (seniority stays in the ranking).
STATEMENTS = ("city", "job_type", "remote", "salary_min", "posted_within_days", "posted_from", "posted_until",
              "seniority")
FILTER_STATEMENTS = tuple(name for name in STATEMENTS if name in SearchFilters.model_fields)


class Understood(BaseModel):
    """The constraints a query states, each with the span it came from (null: not stated)."""

    model_config = ConfigDict(frozen=True)

    city: Found[str] | None = Field(None, description="Canonical English city name.")
    job_type: Found[str] | None = Field(None, description=f"One of {', '.join(JOB_TYPES)}.")
    remote: Found[bool] | None = Field(
        None, description="true: the query asks for fully remote jobs; false: it rules remote out.")
    salary_min: Found[float] | None = Field(
        None, description="The lowest pay asked for, as stated (per `period`, in `currency`).")
    currency: Found[str] | None = None
    period: Found[str] | None = Field(None, description="hour | day | month | year, as stated or implied.")
    skills: list[Found[str]] = Field(default_factory=list, description="Canonical skill names.")
    seniority: Found[str] | None = Field(None, description="The most senior level the query names.")
    seniority_levels: list[str] = Field(
        default_factory=list,
        description="The levels ranked up (never a filter): the one named, or, when the query names "
                    f"several, each of them and every level between two on the ladder {' < '.join(LADDER)} "
                    "('lead or principal': lead, staff, principal).")
    posted_within_days: Found[int] | None = None
    posted_from: Found[date] | None = Field(
        None, description="The first posting day asked for ('posted since 2026-11-01', '2026年11月发布的').")
    posted_until: Found[date] | None = Field(
        None, description="The last posting day asked for ('posted before March 2021', '2021年2月发布的').")
    excluded: list[Excluded] = Field(
        default_factory=list,
        description="What the query rules out. No filter excludes a value, so these are never applied; "
                    "their words are not searched either (they would find what was ruled out).")
    notes: list[str] = Field(default_factory=list, description="Statements read but not usable as filters.")

    def filters(self) -> dict[str, Any]:
        """The hard constraints as ``SearchFilters`` fields (skills and seniority stay in the ranking)."""
        out: dict[str, Any] = {}
        for name in FILTER_STATEMENTS:
            item = getattr(self, name)
            if item is None:
                continue
            if name != "salary_min":
                out[name] = item.value
            elif self.period is not None:
                annual, _ = annualize(Salary(min=item.value, period=self.period.value))
                # Pay in no known currency filters nothing: the filter's default (USD) would
                # compare "6-12k" for a job in Nanjing with dollars and drop every posting in yuan.
                currency = self.currency.value if self.currency is not None else None
                if annual is not None and currency in known_currencies():
                    out["salary_min"] = float(annual)
                    out["currency"] = currency
        return out

    def spans(self, fields: set[str] | None = None) -> list[tuple[int, int]]:
        """Spans of the statements (of ``fields`` only, when given), in query order."""
        found: list[tuple[int, int]] = []
        for name in STATEMENTS:
            item = getattr(self, name)
            if item is not None and (fields is None or name in fields):
                found.append((item.start, item.end))
        if fields is None or "skills" in fields:
            found.extend((s.start, s.end) for s in self.skills)
        return sorted(set(found))

    def excluded_spans(self) -> list[tuple[int, int]]:
        """Spans of what the query rules out, with their negating words: never searched."""
        return sorted({(e.start, e.end) for e in self.excluded})


def merge_filters(explicit: SearchFilters, understood: Understood) -> tuple[SearchFilters, set[str]]:
    """``explicit`` plus what the query states; a filter the caller set always wins.

    Returns the filters and the names of the fields taken from the query. A stated value no
    filter accepts (pay beyond the filters' bound) is left out rather than failing the search.
    """
    given = explicit.model_fields_set
    stated = understood.filters()
    taken: dict[str, Any] = {}
    for name, value in stated.items():
        if name == "currency" or name in given or (name == "salary_min" and "currency" in given):
            continue
        extra = {"currency": stated["currency"]} if name == "salary_min" and "currency" in stated else {}
        try:
            SearchFilters.model_validate({name: value, **extra})
        except ValueError:
            continue
        taken[name] = value
        taken.update(extra)
    if not taken:
        return explicit, set()
    data = {name: getattr(explicit, name) for name in given if name in SearchFilters.model_fields}
    data.update(taken)
    try:
        merged = SearchFilters.model_validate(data)
    except ValueError:
        # Only a window can conflict field by field (a stated end before the caller's start):
        # the caller's dates stand and the stated ones are left out.
        for name in ("posted_from", "posted_until"):
            if name in taken:
                data[name] = getattr(explicit, name)
                taken.pop(name)
        merged = SearchFilters.model_validate(data)
    return merged, set(taken) - {"currency"}


def strip_spans(query: str, spans: list[tuple[int, int]]) -> str:
    """``query`` with the given spans blanked out (what is left is searched as words)."""
    if not spans:
        return query
    chars = list(query)
    for start, end in spans:
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    return " ".join("".join(chars).split())


# ---------------------------------------------------------------------------- spans
@dataclass(frozen=True)
class _Cand:
    start: int
    end: int
    kind: str
    value: Any
    rank: int          # lower wins between spans of equal length


_NUM = r"(?:\d+(?:[.,]\d+)*|[一二两三四五六七八九十百千]+)"
_MONEY_UNIT = r"(?:(?:lpa|lakhs?|lacs?|crores?)(?![A-Za-z])|[kK千万萬wW]|million|mn)"   # lakhs: Indian numbering
_CURRENCY_WORD = (r"(?:USDT|USD|U|RMB|CNY|HKD|SGD|EUR|GBP|JPY|AUD|CAD|元|块|美元|美金|刀|港币|港元|新币|欧元|英镑|日元|円|"
                  r"dollars?|bucks|euros?|pounds?|INR|rupees?)")
_CURRENCY_PREFIX = (r"(?:US\$|HK\$|S\$|A\$|C\$|\$|£|€|¥|￥|₹|RMB\s*|CNY\s*|USD\s*|HKD\s*|SGD\s*|EUR\s*|GBP\s*|"
                    r"INR\s*|Rs\.?\s*)")
_AMOUNT = rf"{_CURRENCY_PREFIX}?\s*{_NUM}\s*{_MONEY_UNIT}?\s*{_CURRENCY_WORD}?"
_PAY_WORD = (r"(?:月薪|年薪|日薪|时薪|底薪|薪资|薪水|薪酬|工资|待遇|年包|总包|salary|pay(?:s|ing)?|compensation|comp|"
             r"earn(?:s|ing)?|wage|base)")
_PERIOD_WORD = (r"(?:/\s*(?:月|年|天|日|小时|时|h|hr|hour|day|month|mo|year|yr|y|m)|每月|每年|一个月|一年|"
                r"(?:a|per|an|/)\s*(?:year|month|day|hour|annum)|annually|yearly|monthly)")
_AT_LEAST_BEFORE = r"(?:at least|minimum|min\.?|over|above|more than|from|starting at|不低于|至少|最低|超过|高于|>=|≥|>)"
_AT_LEAST_AFTER = r"(?:以上|及以上|或以上|起|起步|\+|or more|and up|plus)"
_AT_MOST = r"(?:以内|以下|之内|内|under|below|up to|less than|at most|max(?:imum)?|最多|不超过|低于|<=|≤|<)"

_SALARY_RE = re.compile(
    rf"(?:(?P<lead>{_PAY_WORD})\s*(?:of|is|:|：|在|为)?\s*)?(?P<pre>{_AT_LEAST_BEFORE}|{_AT_MOST})?\s*"
    rf"(?P<a>{_AMOUNT})(?:\s*(?:-|~|～|到|至|to)\s*(?P<b>{_AMOUNT}))?"
    rf"\s*(?P<period>{_PERIOD_WORD})?\s*(?P<post>{_AT_LEAST_AFTER}|{_AT_MOST})?",
    re.I,
)
_EXPERIENCE_RE = re.compile(
    rf"{_NUM}\s*(?:-|~|到|至)?\s*{_NUM}?\s*\+?\s*(?:年|years?|yrs?)(?:以上|及以上|或以上|以下)?\s*(?:工作|相关|开发)?(?:经验|經驗|"
    rf"of experience|experience|exp)?|(?:经验|experience)\s*{_NUM}\s*(?:年|years?)(?:以上)?",
    re.I,
)
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_UNIT_DAYS = {"day": 1, "days": 1, "天": 1, "日": 1, "week": 7, "weeks": 7, "周": 7, "星期": 7, "礼拜": 7,
              "month": 30, "months": 30, "月": 30, "个月": 30, "year": 365, "years": 365, "年": 365}
_FRESH_RE = re.compile(
    r"(?:posted|published|listed|added|new)?\s*(?:in|within)?\s*(?:the\s+)?(?:last|past)\s+(?P<n1>\d+|a|one|two|three|few)?\s*"
    r"(?P<u1>days?|weeks?|months?)"
    r"|(?:posted|published|listed|added|new)\s+(?:this|today)\s*(?P<u2>week|month)?"
    r"|(?:posted|published|listed|added)?\s*this\s+(?P<u3>week|month)"
    r"|(?:posted|published|listed|added|new)\s+today|\btoday'?s?\b"
    r"|within\s+(?P<n4>\d+)\s+(?P<u4>days?|weeks?|months?)"
    r"|(?:最近|近|过去|這|这)\s*(?P<n5>\d+|[一二两三四五六七八九十]+)?\s*(?P<u5>天|日|周|星期|礼拜|个月|月)(?:内|之内|以内)?\s*(?:发布|更新|新发)?(?:的)?"
    r"|(?P<n6>\d+|[一二两三四五六七八九十]+)\s*(?P<u6>天|日|周|星期|个月)\s*(?:内|之内|以内)\s*(?:发布|更新)?(?:的)?"
    r"|(?:本周|这周|本月|这个月|今天|今日)\s*(?:内)?\s*(?:发布|更新|新发)(?:的)?"
    r"|(?:今天|今日|本周|本月)(?=的|新)",
    re.I,
)
#: A city named after these is where the company is, not where the job is.
_HEADQUARTERS = re.compile(r"(?:总部|總部|公司)\s*(?:在|位于|设在)?\s*$|(?:headquartered|hq|head office|based company)"
                           r"\s*(?:in|at)?\s*$", re.I)
#: A job-type word that names the employer ("at a defense contractor", "for an agency"): who
#: one would work for, not the kind of contract.
_EMPLOYER_BEFORE = re.compile(r"\b(?:at|for|with|join)\s+(?:a|an|the|our)\s+(?:[\w-]+\s+){0,2}$", re.I)
#: Between a city and "remote": either one will do ("成都或远程", "remote or Berlin").
_EITHER = re.compile(r"^\s*(?:或者?|或是|还是|or|/|／|、)\s*$", re.I)
#: Words before a statement that rule it out: "不要外包", "除了北京", "no internships",
#: "without Django". Remote is not among the statements read this way: the location parser
#: already reads "非远程" and "not remote" as ruling remote out (remote=false, a filter); where it
#: reads remote=true and these words rule it out ("no-remote"), remote=false is what was meant.
_NEGATED_BEFORE = re.compile(
    rf"(?:不要|不想|不考虑|不接受|不需要|不找|不做|不去|不投|不含|不是|无需|拒绝|除了|除去|别找|别投|(?<![{_CJK}])(?:除|别|非))\s*$"
    r"|\b(?:no|not|non|without|except|excluding|exclude|other than|never|avoid|anything but|but not|"
    r"(?:do not|don'?t) want|not interested in)\s*-?\s*(?:an?\s+|the\s+|any\s+)?$",
    re.I,
)
#: Words after one that rule it out: always ("外包勿扰", "北京以外"), or only where the clause
#: ends with them ("实习不考虑。"; in "Java 不要 Android" the 不要 rules out Android, not Java).
_NEGATED_AFTER = re.compile(r"^\s*(?:勿扰|免谈|莫扰|除外|以外)"
                            r"|^\s*(?:不要|不考虑|不接受|不行|不可以)\s*(?=$|[,，。.;；、!！?？)）\]】])")
#: A statement whose own words begin by ruling it out ("非外包" is read whole as a job type).
_NEGATED_START = re.compile(r"^(?:非|不要|不做|不是|no\b|non-?|not\b)", re.I)
#: The statements a negation rules out.
_NEGATABLE = {"city": "city", "job_type": "job_type", "skill": "skills", "seniority": "seniority"}
_LOCATION_PREPOSITION = re.compile(r"(?:\bin|\bat|\bnear|\baround|\bbased in|\bfrom)\s+$", re.I)


def _nfkc_same_length(text: str) -> str:
    """NFKC per character where it keeps one character, so offsets stay those of the query."""
    out = []
    for ch in text:
        folded = unicodedata.normalize("NFKC", ch)
        out.append(folded if len(folded) == 1 else ch)
    return "".join(out)


def _cn_number(text: str | None) -> int | None:
    if not text:
        return None
    if text.isdigit():
        return int(text)
    low = text.lower()
    if low in ("a", "one"):
        return 1
    if low == "two":
        return 2
    if low == "three":
        return 3
    if low == "few":
        return 3
    if text == "十":
        return 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    if len(text) == 1 and text in _CN_DIGITS:
        return _CN_DIGITS[text]
    return None


_FRESH_CUE = re.compile(r"last|past|this|today|within|posted|new|yesterday|hour|最近|近|过去|这|這|本周|本月|今|内|昨|小时",
                        re.I)
#: Freshness in hours ("in the last 48 hours", "24小时内") and "yesterday" (昨天): whole days, at least one.
_FRESH_HOURS_RE = re.compile(
    r"(?:posted\s+|published\s+|listed\s+)?(?:(?:in|within)\s+)?(?:the\s+)?(?:last|past)\s+(?P<h1>\d+)\s*(?:hours?|hrs?)\b"
    r"|(?:(?:最近|近|过去)\s*(?P<h2>\d+|[一二两三四五六七八九十]+)\s*个?小时\s*(?:内|之内|以内)?"
    r"|(?P<h3>\d+|[一二两三四五六七八九十]+)\s*个?小时\s*(?:内|之内|以内))\s*(?:发布|更新|新发)?(?:的)?"
    r"|(?P<y>(?:posted\s+|published\s+)?(?:since\s+)?\byesterday\b|昨天\s*(?:发布|更新|新发)?(?:的)?)",
    re.I,
)
_MONEY_CUE = re.compile(r"\d|[一二两三四五六七八九十百][万千]")
_HAS_MONEY = re.compile(rf"{_MONEY_UNIT}|{_CURRENCY_PREFIX}|{_CURRENCY_WORD}", re.I)
_AT_MOST_RE = re.compile(_AT_MOST, re.I)
_AT_LEAST_AFTER_RE = re.compile(_AT_LEAST_AFTER, re.I)


def _freshness(text: str) -> list[_Cand]:
    out: list[_Cand] = []
    if not _FRESH_CUE.search(text):
        return out
    for m in _FRESH_RE.finditer(text):
        phrase = m.group(0)
        if not phrase.strip():
            continue
        low = phrase.lower()
        unit = next((m.group(g) for g in ("u1", "u2", "u3", "u4", "u5", "u6") if m.group(g)), None)
        number = next((m.group(g) for g in ("n1", "n4", "n5", "n6") if m.group(g)), None)
        if unit is None:
            if "周" in phrase or "week" in low:
                unit = "week"
            elif "月" in phrase or "month" in low:
                unit = "month"
            elif "今" in phrase or "today" in low:
                unit = "day"
        if unit is None:
            continue
        days = _UNIT_DAYS.get(unit.lower(), _UNIT_DAYS.get(unit))
        n = _cn_number(number) if number else 1
        if days is None or n is None or n < 1:
            continue
        start = m.start() + (len(phrase) - len(phrase.lstrip()))
        end = m.end() - (len(phrase) - len(phrase.rstrip()))
        out.append(_Cand(start, end, "posted_within_days", min(n * days, 3650), 0))
    for m in _FRESH_HOURS_RE.finditer(text):
        phrase = m.group(0)
        if m.group("y"):
            days = 2   # yesterday's postings and today's
        else:
            hours = _cn_number(m.group("h1") or m.group("h2") or m.group("h3"))
            if hours is None or hours < 1:
                continue
            days = min(max(1, -(-hours // 24)), 3650)
        start = m.start() + (len(phrase) - len(phrase.lstrip()))
        end = m.end() - (len(phrase) - len(phrase.rstrip()))
        out.append(_Cand(start, end, "posted_within_days", days, 0))
    return out


def _experience(text: str) -> list[_Cand]:
    out: list[_Cand] = []
    if not _MONEY_CUE.search(text):
        return out
    for m in _EXPERIENCE_RE.finditer(text):
        lo, _ = parse_experience(m.group(0))
        if lo is not None:
            out.append(_Cand(m.start(), m.end(), "experience", lo, 0))
    return out


def _salaries(text: str, language_hint: str | None) -> list[_Cand]:
    out: list[_Cand] = []
    if not _MONEY_CUE.search(text):
        return out
    for m in _SALARY_RE.finditer(text):
        span = m.group(0).strip()
        if not span:
            continue
        a = m.group("a") or ""
        has_money = bool(_HAS_MONEY.search(a) or (m.group("b") and _HAS_MONEY.search(m.group("b"))))
        if not (has_money or m.group("lead") or m.group("period")):
            continue   # a bare number ("top 10", "3") is not pay
        if not re.search(r"\d", a) and not has_money:
            continue
        qualifier = (m.group("pre") or "") + " " + (m.group("post") or "")
        at_most = bool(_AT_MOST_RE.search(qualifier)) and not _AT_LEAST_AFTER_RE.search(m.group("post") or "")
        start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
        end = start + len(span)
        # The pay word and period give the parser the context a posting's salary line has.
        salary = parse_salary(span, context_currency="CNY" if language_hint == "zh" else None)
        if salary is None or (salary.min is None and salary.max is None):
            continue
        low = salary.min if salary.min is not None else salary.max
        out.append(_Cand(start, end, "salary_max" if at_most else "salary",
                         (low, salary.currency, salary.period), 0))
    return out


def _words(text: str) -> list[tuple[int, int]]:
    """(start, end) of the query's words: Latin words, and jieba's segments of CJK runs."""
    spans: list[tuple[int, int]] = []
    for run in re.finditer(f"[{_CJK}]+|[^{_CJK}]+", text):
        piece = run.group(0)
        if _CJK_CHAR.match(piece):
            for _word, s, e in rjieba.tokenize(piece):
                spans.append((run.start() + s, run.start() + e))
        else:
            for w in _LATIN_WORD.finditer(piece):
                spans.append((run.start() + w.start(), run.start() + w.end()))
    return spans


def _windows(text: str, words: list[tuple[int, int]], max_words: int = 4) -> list[tuple[int, int, int, int]]:
    """Runs of 1..max_words consecutive words, longest first: (start, end, first word, word count)."""
    out = []
    for n in range(max_words, 0, -1):
        for i in range(len(words) - n + 1):
            start, end = words[i][0], words[i + n - 1][1]
            if n > 1 and _BREAK.search(text, start, end):
                continue
            out.append((start, end, i, n))
    return out


_BREAK = re.compile(r"[,，。;；!?！？/|、()（）]")


def _minimal(text: str, words: list[tuple[int, int]], classify: Any, max_words: int = 4) -> list[tuple[int, int, Any]]:
    """Windows that ``classify`` gives a value and that no shorter window inside gives the same.

    The normalizer's parsers read a statement anywhere in the text they get ("的 AI Agent 实习"
    names the skill AI Agent), so the span is the smallest run of words that still says it.
    """
    memo: dict[tuple[int, int], Any] = {}

    def value(i: int, n: int) -> Any:
        key = (i, n)
        if key not in memo:
            memo[key] = classify(text[words[i][0]:words[i + n - 1][1]]) if n > 0 else None
        return memo[key]

    out = []
    for start, end, i, n in _windows(text, words, max_words):
        v = value(i, n)
        if v is None:
            continue
        if n > 1 and (value(i + 1, n - 1) == v or value(i, n - 1) == v):
            continue
        out.append((start, end, v))
    return out


@functools.lru_cache(maxsize=1)
def _city_names() -> tuple[frozenset[str], dict[str, str]]:
    """(every spelling of every city, casefolded; lower-case spellings of the well-known cities).

    The first is a cheap test before the normalizer is asked about a run of words. The second:
    a query writes "singapore" or "san francisco" in lower case, which the location parser
    rightly refuses in free text ("reading", "mobile"); cities whose table entry carries a
    Chinese name (the curated, well-known ones) are accepted in lower case too.
    """
    spellings: set[str] = set()
    curated: dict[str, str] = {}
    for city in known_cities():
        aliases = city_aliases(city) or [city]
        folded = [a.casefold() for a in aliases]
        spellings.update(folded)
        spellings.update(f[:-1] for f in folded if f.endswith("市") and len(f) > 2)
        if any(_CJK_CHAR.search(a) for a in aliases):
            for alias in folded:
                if not _CJK_CHAR.search(alias) and len(alias) >= 4:
                    curated.setdefault(alias, city)
    return frozenset(spellings), curated


def _cities(text: str, windows: list[tuple[int, int, int, int]]) -> list[_Cand]:
    """City mentions: what the location parser reads in the query, located; plus lower-case names."""
    spellings, curated = _city_names()
    hits = [w for w in windows if text[w[0]:w[1]].casefold() in spellings]
    # A city written together with its district is one jieba word ("上海浦东", "上海浦东新区"):
    # its leading city name counts, where the location parser reads that city in the query too.
    for start, end, _i, n in windows:
        if n == 1 and end - start > 2 and _CJK_CHAR.match(text[start]):
            hits.extend((start, start + k, _i, n) for k in range(2, min(end - start, 5))
                        if text[start:start + k] in spellings)
    if not hits:
        return []
    cities, _, _ = resolve_locations(text)
    out: list[_Cand] = []
    for start, end, _i, _n in hits:
        piece = text[start:end]
        city = cached_city(piece)
        if city is None:
            continue
        latin = not _CJK_CHAR.search(piece)
        key = piece.casefold()
        # A well-known city written in lower case, or capitalized where the location parser's
        # free-text guard refuses it ("Beijing java developer": the parser keeps "Beijing" out of
        # descriptions, which say "Beijing time"); in a question it is the place.
        lower_ok = curated.get(key) == city and (piece == piece.lower() or piece[:1].isupper()) \
            and not re.match(r"\s+time\b", text[end:], re.I)
        after_preposition = _LOCATION_PREPOSITION.search(text[:start]) is not None
        if latin and not piece[:1].isupper() and not (lower_ok or (after_preposition and city in curated.values())):
            # The location parser reads a lone lower-case segment leniently ("lead" in "lead or
            # principal ..." is a whole alternative to it): in a question only the well-known
            # cities count in lower case.
            continue
        if city not in cities and not (lower_ok or (after_preposition and city in curated.values())):
            continue
        if _CJK_CHAR.search(piece) and end < len(text) and text[end] in "区區路街道县縣镇":
            continue   # a district or street of that name
        if _CJK_CHAR.search(piece):
            named = _directed_city(text, start, city)
            if named is not None:   # 南旧金山 is South San Francisco, not San Francisco
                out.append(_Cand(start - 1, end, "city", named, 1))
                continue
            senses = _city_senses(piece)
            if len(senses) > 1:     # 圣地亚哥: Santiago or San Diego
                out.append(_Cand(start, end, "city_ambiguous", senses, 1))
                continue
        out.append(_Cand(start, end, "city", city, 1))
    return out


#: A direction before a Chinese city name that, with it, names another city (南旧金山 is South
#: San Francisco, 西好莱坞 West Hollywood, 北温哥华 North Vancouver).
_DIRECTIONS = {"南": "South", "北": "North", "东": "East", "東": "East", "西": "West"}


def _directed_city(text: str, start: int, city: str) -> str | None:
    """The city a direction character right before a city name makes of it, if the tables know one."""
    direction = _DIRECTIONS.get(text[start - 1]) if start > 0 else None
    if direction is None or (start > 1 and _CJK_CHAR.match(text[start - 2])):
        return None   # 河南 / 湖南 before a city: a province, not a direction
    named = cached_city(f"{direction} {city}")
    return named if named is not None and named != city else None


@functools.lru_cache(maxsize=1024)
def _city_senses(name: str) -> tuple[str, ...]:
    """The distinct known cities the dictionary's senses of a Chinese name are (圣地亚哥: Santiago,
    San Diego): a name with two is no city filter, whichever the location table picked."""
    return tuple(dict.fromkeys(c for c in (cached_city(sense) for sense in english_senses(name)) if c))


#: Role words after a skill name: "rust developer", "react 开发", "go backend".
_ROLE_AFTER = (r"\s*(?:developers?|engineers?|devs?|programmers?|programming|coders?|backend|back-end|frontend|"
               r"front-end|full-?stack|开发|工程师|程序员|研发|后端|前端|全栈)(?![A-Za-z])")


@functools.lru_cache(maxsize=1)
def _lower_case_skill() -> re.Pattern[str] | None:
    aliases = [a for a in case_sensitive_aliases() if a.isascii() and a.isalpha()]
    if not aliases:
        return None
    names = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9+#.])({names})(?={_ROLE_AFTER})")


def _cased(text: str) -> str:
    """``text`` with a lower-case skill name before a role word spelled as the taxonomy does.

    The normalizer reads "Rust", "Go", "React" or "Spring" only as spelled, since a posting's
    lower-case "rust" or "spring" is the word; a question types them in lower case, and before
    "developer" or "工程师" they are the skill. Lengths are kept, so spans stay the query's.
    """
    pattern = _lower_case_skill()
    if pattern is None:
        return text
    aliases = case_sensitive_aliases()
    return pattern.sub(lambda m: aliases[m.group(1)] if len(aliases[m.group(1)]) == len(m.group(1)) else m.group(1),
                       text)


def _skills(text: str, words: list[tuple[int, int]]) -> list[_Cand]:
    text = _cased(text)
    wanted = set(extract_skills(text))
    if not wanted:
        return []
    out = [_Cand(start, end, "skill", name, 0) for start, end, name in _minimal(text, words, cached_skill)
           if name in wanted]
    # CJK skills inside a jieba word ("前端开发" holds 前端)
    for run in re.finditer(f"[{_CJK}]+", text):
        piece = run.group(0)
        for length in range(min(6, len(piece)), 1, -1):
            for i in range(len(piece) - length + 1):
                name = cached_skill(piece[i:i + length])
                if name is not None and name in wanted:
                    out.append(_Cand(run.start() + i, run.start() + i + length, "skill", name, 2))
    return out


def _typed_words(text: str, words: list[tuple[int, int]]) -> list[_Cand]:
    """Job type, remote and seniority words (the smallest runs of words that state them)."""
    out: list[_Cand] = []
    whole_type = parse_job_type(None, text)
    if whole_type is not None:
        out.extend(_Cand(s, e, "job_type", v, 3)
                   for s, e, v in _minimal(text, words, lambda p: parse_job_type(None, p), 3) if v == whole_type)
    _, _, whole_mode = resolve_locations(text)
    if whole_mode in ("remote", "onsite"):
        out.extend(_Cand(s, e, "remote", v == "remote", 4)
                   for s, e, v in _minimal(text, words, lambda p: resolve_locations(p)[2], 3) if v == whole_mode)
    whole_seniority = parse_seniority(text)
    if whole_seniority is not None and whole_seniority != "intern":
        out.extend(_Cand(s, e, "seniority", v, 5)
                   for s, e, v in _minimal(text, words, parse_seniority, 3) if v == whole_seniority)
    return out


def _named_levels(text: str) -> list[str]:
    """Every level ``text`` names, most senior first: the normalizer reads the most senior one, so
    each level's words are blanked in turn and the rest read again ("lead or principal":
    principal, then lead; "senior product manager": senior only, a product manager is no level)."""
    words = _words(text)
    levels: list[str] = []
    while (level := parse_seniority(text)) is not None and level != "intern" and level not in levels:
        levels.append(level)
        for start, end, value in _minimal(text, words, parse_seniority, 3):
            if value == level:
                text = text[:start] + " " * (end - start) + text[end:]
    return levels


def _preferred_levels(text: str) -> list[str]:
    """The levels a query's seniority list prefers, on the ladder's order where it has one."""
    named = _named_levels(text)
    on_ladder = sorted(LADDER.index(level) for level in named if level in LADDER)
    between = list(LADDER[on_ladder[0]:on_ladder[-1] + 1]) if len(on_ladder) > 1 else []
    return list(dict.fromkeys([*between, *(level for level in named if level not in between)]))


def _choose(cands: list[_Cand]) -> list[_Cand]:
    """Non-overlapping spans, longest first (then by rank, then leftmost)."""
    taken: list[_Cand] = []
    for cand in sorted(cands, key=lambda c: (-(c.end - c.start), c.rank, c.start)):
        if any(cand.start < t.end and t.start < cand.end for t in taken):
            continue
        taken.append(cand)
    return sorted(taken, key=lambda c: c.start)


def _found(query: str, cand: _Cand, value: Any) -> dict[str, Any]:
    return {"value": value, "text": query[cand.start:cand.end], "start": cand.start, "end": cand.end}


def understand(query: str, today: date | None = None) -> Understood:
    """The constraints ``query`` states (cached: queries repeat). Never raises on odd input.

    ``today`` (default: the UTC date) places dates without a year ("posted in November").
    """
    return _understand(query, today or datetime.now(timezone.utc).date())


@functools.lru_cache(maxsize=4096)
def _understand(query: str, today: date) -> Understood:
    if not query or not query.strip():
        return Understood()
    text = _nfkc_same_length(query)
    language = "zh" if _CJK_CHAR.search(text) else "en"
    data: dict[str, Any] = {"skills": [], "notes": [], "excluded": []}
    read = text
    chosen = _candidates(read, language, today)
    # What is ruled out is read again without those words: "no internships, data analyst
    # full-time" states full-time once "no internships" is set aside. Blanking keeps offsets, and
    # each round blanks words, so the rounds end.
    while negated := [(cand, span) for cand in chosen if (span := _negation(read, cand)) is not None]:
        for cand, (start, end) in negated:
            if cand.kind == "remote":
                # "no-remote": remote ruled out is a filter (remote=false), as "not remote" reads.
                data["remote"] = {"value": False, "text": query[start:end], "start": start, "end": end}
            else:
                _exclude(query, data, _NEGATABLE[cand.kind], cand.value, (start, end))
            read = read[:start] + " " * (end - start) + read[end:]
        chosen = _candidates(read, language, today)
    cities: list[_Cand] = []
    ambiguous: list[_Cand] = []
    remote_asked = any(c.kind == "remote" and c.value for c in chosen)
    for cand in chosen:
        if cand.kind == "city":
            if _HEADQUARTERS.search(text[:cand.start]) or (remote_asked and _EMPLOYER_BEFORE.search(text[:cand.start])):
                # "总部在北京"; "remote ... for a Hong Kong SaaS company": where the company is
                data["notes"].append(f"{query[cand.start:cand.end]!r} reads as where the company is, not the job")
                continue
            if all(c.value != cand.value for c in cities):
                cities.append(cand)
        elif cand.kind == "city_ambiguous":
            ambiguous.append(cand)
            data["notes"].append(f"{query[cand.start:cand.end]!r} may be {' or '.join(cand.value)}: not applied as "
                                 "the city filter")
        elif cand.kind == "skill":
            if all(s["value"] != cand.value for s in data["skills"]):
                data["skills"].append(_found(query, cand, cand.value))
        elif cand.kind == "salary":
            amount, currency, period = cand.value
            if "salary_min" not in data:
                data["salary_min"] = _found(query, cand, float(amount))
                if currency:
                    data["currency"] = _found(query, cand, currency)
                if period:
                    data["period"] = _found(query, cand, period)
        elif cand.kind == "salary_max":
            data["notes"].append(f"{query[cand.start:cand.end]!r} is a pay ceiling: no filter takes it")
        elif cand.kind == "job_type" and _EMPLOYER_BEFORE.search(text[:cand.start]):
            data["notes"].append(f"{query[cand.start:cand.end]!r} reads as the employer, not the job type")
        elif cand.kind == "posted_window":
            # Each end once, from the first statement of it ("since 2026-11-01, before December": both)
            for name, value in zip(("posted_from", "posted_until"), cand.value, strict=True):
                if value is not None:
                    data.setdefault(name, _found(query, cand, value))
        elif cand.kind in ("job_type", "remote", "seniority", "posted_within_days"):
            data.setdefault(cand.kind, _found(query, cand, cand.value))
    if "job_type" in data:
        _one_job_type(query, read, data)
    remote = data.get("remote")
    if len(cities) == 1 and remote is not None and remote["value"] and _either(text, cities[0], remote):
        # "可远程或成都坐班": a remote job or one in Chengdu; both filters at once would ask for neither.
        data.pop("remote")
        data["notes"].append(f"{query[cities[0].start:cities[0].end]!r} or remote: neither applied as a filter")
    elif len(cities) == 1 and not ambiguous:
        data["city"] = _found(query, cities[0], cities[0].value)
    elif len(cities) > 1:
        named = ", ".join(query[c.start:c.end] for c in cities)
        data["notes"].append(f"several cities named ({named}): none applied as the city filter")
    if "seniority" in data:
        data["seniority_levels"] = _preferred_levels(read)
    if "posted_from" in data and "posted_until" in data and data["posted_from"]["value"] > data["posted_until"]["value"]:
        ends = f"{data.pop('posted_from')['text']!r} and {data.pop('posted_until')['text']!r}"
        data["notes"].append(f"{ends} leave no day between them: neither applied")
    if "salary_min" in data and "currency" not in data:
        _implied_currency(query, data, cities[0] if len(cities) == 1 else None)
    elif "salary_min" in data and len(cities) == 1:
        _city_currency(query, data, cities[0])
    return Understood.model_validate(data)


_STATED_CURRENCY = re.compile(rf"{_CURRENCY_PREFIX}|{_CURRENCY_WORD}", re.I)


def _currency_of(query: str, city: _Cand) -> str | None:
    """The currency of the country of a city the query names, as the normalizer pays a posting there."""
    return COUNTRY_CURRENCY.get(resolve_locations(query[city.start:city.end])[1] or "")


def _city_currency(query: str, data: dict[str, Any], city: _Cand) -> None:
    """A Chinese amount with no currency named is in the named city's currency, not in yuan.

    The salary parser reads "年薪100万" as CNY, as a mainland posting means it; in "香港 量化研究员
    年薪100万" or "新加坡 后端 月薪1万以上" the pay is the city's (HKD, SGD), as the normalizer reads
    a posting's bare amount by its country. A currency written out ("5k U", "2万港币") stays.
    """
    pay, currency = data["salary_min"], data["currency"]
    local = _currency_of(query, city)
    if local is None or currency["value"] != "CNY" or local == "CNY" or _STATED_CURRENCY.search(pay["text"]):
        return
    data["currency"] = {**currency, "value": local}
    data["notes"].append(f"{pay['text']!r} read as {local}, the currency of {query[city.start:city.end]}")


def _one_job_type(query: str, read: str, data: dict[str, Any]) -> None:
    """Two job types named ("兼职或实习", "part-time or full-time"): neither is the filter.

    ``parse_job_type`` reads a posting's "全/兼职" as the type that sets it apart; a question that
    names two asks for either, and filtering on one would drop the other's postings (as with two
    cities). The second type is what the parser reads once the first one's words are blanked.
    """
    first = data["job_type"]
    rest = read[:first["start"]] + " " * (first["end"] - first["start"]) + read[first["end"]:]
    other = parse_job_type(None, rest)
    if other is None or other == first["value"]:
        return
    spans = [(s, e) for s, e, v in _minimal(rest, _words(rest), lambda p: parse_job_type(None, p), 3) if v == other]
    if spans:
        ruled_out = _negation(rest, _Cand(spans[0][0], spans[0][1], "job_type", other, 3))
        if ruled_out is not None:   # "不要外包 全职": the other one is ruled out, not an alternative
            _exclude(query, data, "job_type", other, ruled_out)
            return
    named = ", ".join(query[s:e] for s, e in sorted([(first["start"], first["end"]), *spans[:1]]))
    data.pop("job_type")
    data["notes"].append(f"several job types named ({named}): none applied as the job type filter")


def _exclude(query: str, data: dict[str, Any], field: str, value: Any, span: tuple[int, int]) -> None:
    start, end = span
    data["excluded"].append({"field": field, "value": str(value), "text": query[start:end], "start": start, "end": end})
    data["notes"].append(f"{query[start:end]!r} rules out {field.rstrip('s').replace('_', ' ')} {value}: no filter "
                         "excludes one, so it is not applied, and its words are not searched")


def _candidates(text: str, language: str, today: date) -> list[_Cand]:
    """Every statement of ``text``, as the non-overlapping spans that state them."""
    words = _words(text)
    dates = [_Cand(d.start, d.end, "posted_window", (d.posted_from, d.posted_until), 0) for d in find_dates(text, today)]
    return _choose(dates + _freshness(text) + _experience(text) + _salaries(text, language)
                   + _cities(text, _windows(text, words)) + _skills(text, words) + _typed_words(text, words))


def _negation(text: str, cand: _Cand) -> tuple[int, int] | None:
    """The span of ``cand`` with the words that rule it out, or None when nothing does."""
    if cand.kind not in _NEGATABLE and not (cand.kind == "remote" and cand.value is True):
        return None
    if _NEGATED_START.match(text[cand.start:cand.end]):
        return cand.start, cand.end
    before = _NEGATED_BEFORE.search(text[:cand.start])
    if before is not None:
        return before.start(), cand.end
    after = _NEGATED_AFTER.search(text[cand.end:])
    if after is not None:
        return cand.start, cand.end + after.end()
    return None


def _either(text: str, city: _Cand, remote: dict[str, Any]) -> bool:
    first, second = (city.start, city.end), (remote["start"], remote["end"])
    if first > second:
        first, second = second, first
    return bool(_EITHER.match(text[first[1]:second[0]]))


def _implied_currency(query: str, data: dict[str, Any], city: _Cand | None) -> None:
    """A bare amount is in the currency of the one city named, as the normalizer reads a posting's
    ("senior frontend engineer in Nanjing, 6-12k" is yuan); otherwise it stays unknown (noted)."""
    pay = data["salary_min"]
    currency = _currency_of(query, city) if city is not None else None
    if city is None or currency is None:
        data["notes"].append(f"{pay['text']!r} names no currency: not applied as a pay filter")
        return
    data["currency"] = {**pay, "value": currency}
    # The period too: "20-30k" is a year's pay in dollars but a month's in yuan, as the parser reads
    # an amount in the currency it is told ("salary 20-30k shanghai": 20k CNY a month).
    salary = parse_salary(pay["text"], context_currency=currency)
    if salary is not None and salary.period is not None and data.get("period") is not None:
        data["period"] = {**data["period"], "value": salary.period}
    data["notes"].append(f"{pay['text']!r} read as {currency}, the currency of {query[city.start:city.end]}")

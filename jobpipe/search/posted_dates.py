"""Posting-date windows a question states: "posted in November 2026", "2021年2月发布的", "since 2026-11-01".

Each statement becomes whole days, ``posted_from`` and/or ``posted_until`` (inclusive), as the
search's date-window filter takes them. A date is read as a posting date only where the words
say so, because a year or a month in a job question usually means something else: "2026届" and
"2026校招" are a graduating class, "2026年3月入职" a start date, "3年" experience. So a date counts
when a word beside it relates it to posting ("posted", "published", "发布", "更新"), or when words
bound it ("since", "before", "between ... and", "以来", "以前", "到") and it is a whole date
("since 2026-11-01") or its clause speaks of postings ("golang jobs since November",
"2026年11月以来的岗位"): text pasted from a posting bounds its company's history ("自2017年起",
"since 2018"), which is no window. A bare "2026年11月" is left alone. Read as queries, the first
3,000 characters of each of the evaluation corpus's 4,825 descriptions state no window.

A date without a year ("posted in November", "11月以来") is the latest such day or month that is
not after ``today``; so are "今年" / "this year", "去年" / "last year" and "上个月" (the calendar
month before this one). Quarters read as their months ("Q3 2026", "2026年第三季度"). "last month"
and "this month" stay what ``understand`` reads them as: freshness in days.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

_MONTHS = {name: i for i, names in enumerate(
    [(), ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")]) for name in names}
_MONTH_NAME = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?:19|20)\d{2}"
_DAY = r"(?:3[01]|[12]\d|0?[1-9])"
_MONTH_NUM = r"(?:1[0-2]|0?[1-9])"

#: One date, day, month or year (named groups: y, m, d, or mn for an English month name).
_POINT = (
    # 2026-11-05, 2026/11/05, 2026.11.05, 2026-11, 2026年11月5日, 2026年11月, 2026年
    rf"(?P<y>{_YEAR})(?:\s*(?:年|[-/.])\s*(?P<m>{_MONTH_NUM})(?:\s*(?:月|[-/.])\s*(?P<d>{_DAY})(?:\s*(?:日|号))?|\s*月份?)?"
    rf"|\s*年?\s*(?:第\s*(?P<q>[一二三四1-4])\s*季度|[Qq](?P<q2>[1-4]))|\s*年)?(?![\d])"
    # Q3 2026
    rf"|\b[Qq](?P<q3>[1-4])\s+(?:of\s+)?(?P<y3>{_YEAR})\b"
    # 11月5日, 11月, 11月份 (never "3个月", never 月薪)
    rf"|(?<![\d个])(?P<m2>{_MONTH_NUM})\s*月份?(?:\s*(?P<d2>{_DAY})\s*(?:日|号))?(?!薪|份?工资)"
    # November 5, 2026; Nov 2026; November; 5 Nov 2026
    rf"|(?:(?P<d3>{_DAY})(?:st|nd|rd|th)?\s+)?\b(?P<mn>{_MONTH_NAME})(?![a-z])(?:\s+(?P<d4>{_DAY})(?:st|nd|rd|th)?\b)?"
    rf"(?:,?\s+(?P<y2>{_YEAR})\b)?"
    # relative years, and the calendar month before this one
    r"|(?P<rel>今年|去年|this\s+year|last\s+year|上个?月)"
)
_POINT_RE = re.compile(_POINT, re.I)

_CUE_BEFORE = r"(?:posted|published|listed|added|released|发布于|发布在|更新于)\s*(?:in|on|during)?\s*"
_CUE_AFTER = r"\s*(?:发布|更新|新发|posted|published)"
_FROM_BEFORE = r"(?:since|after|from|starting|on\s+or\s+after|自从?|从)\s*"
_UNTIL_BEFORE = r"(?:before|until|till|through|up\s+to|by|on\s+or\s+before|截至|截止到?)\s*"
# 后 and 前 alone, never the first character of 后端 / 前端 / 前台 (a date, then the job).
_FROM_AFTER = r"\s*(?:以来|以后|之后|后(?![端台])|起|开始|及以后|or\s+later|onwards?|and\s+later)"
_UNTIL_AFTER = r"\s*(?:以前|之前|前(?![端台])|为止|or\s+earlier|and\s+earlier)"
_BETWEEN = r"(?:between\s+|从|自)?"
#: Words of a clause that make it about postings: a bound on a month or a year counts only in
#: such a clause ("golang jobs since November"), since text pasted from a posting bounds its
#: company's history ("自2017年起深耕区块链", "since 2018 in the blockchain space", "截至2023年4月").
_POSTING_WORD = re.compile(
    r"post(?:ed|ings?|s)?\b|publish|listed|added|jobs?\b|openings?|vacanc|hiring|"
    r"发布|更新|新发|职位|岗位|招聘|工作机会", re.I)
_CLAUSE_END = re.compile(r"[,，。;；!！?？\n]")
_TO = r"\s*(?:and|to|until|through|-|–|~|～|到|至)\s*"


@dataclass(frozen=True)
class DateStatement:
    """A window a query states and where (``query[start:end]``); either end may be open (None)."""

    start: int
    end: int
    posted_from: date | None
    posted_until: date | None


@dataclass(frozen=True)
class _Point:
    start: int
    end: int
    first: date
    last: date
    has_year: bool
    has_day: bool = False


def _latest(month: int, day: int | None, today: date) -> int:
    """The year of the latest such month (and day) not after ``today``."""
    return today.year - ((month, day or 1) > (today.month, today.day))


def _point(m: re.Match[str], today: date) -> _Point | None:
    g = m.groupdict()
    try:
        if g.get("rel"):
            rel = g["rel"].lower()
            if rel.startswith("上"):
                last = today.replace(day=1) - timedelta(days=1)
                return _Point(m.start(), m.end(), last.replace(day=1), last, True)
            year = today.year if rel == "今年" or rel.startswith("this") else today.year - 1
            first, last = date(year, 1, 1), date(year, 12, 31)
            return _Point(m.start(), m.end(), first, last, True)
        quarter = g.get("q") or g.get("q2") or g.get("q3")
        if quarter:
            number = "一二三四".index(quarter) + 1 if quarter in "一二三四" else int(quarter)
            year = int(g.get("y") or g["y3"])
            first = date(year, 3 * number - 2, 1)
            last = date(year, 3 * number, calendar.monthrange(year, 3 * number)[1])
            return _Point(m.start(), m.end(), first, last, True)
        if g.get("y"):
            year, month, day = int(g["y"]), g.get("m"), g.get("d")
            has_year = True
        elif g.get("m2"):
            month, day = g["m2"], g.get("d2")
            year = _latest(int(month), int(day) if day else None, today)
            has_year = False
        elif g.get("mn"):
            month, day = str(_MONTHS[g["mn"].lower().rstrip(".")]), g.get("d3") or g.get("d4")
            has_year = bool(g.get("y2"))
            year = int(g["y2"]) if has_year else _latest(int(month), int(day) if day else None, today)
        else:
            return None
        if month is None:
            first, last = date(year, 1, 1), date(year, 12, 31)
        elif day is None:
            first = date(year, int(month), 1)
            last = date(year, int(month), calendar.monthrange(year, int(month))[1])
        else:
            first = last = date(year, int(month), int(day))
    except ValueError:
        return None   # 2026-02-30
    return _Point(m.start(), m.end(), first, last, has_year, day is not None)


def _points(text: str, today: date) -> list[_Point]:
    return [p for p in (_point(m, today) for m in _POINT_RE.finditer(text)) if p is not None]


def _before(text: str, end: int, pattern: str) -> re.Match[str] | None:
    """``pattern`` ending right at ``end``, never the end of a longer Latin word ("standby")."""
    return re.search(rf"(?<![A-Za-z])(?:{pattern})$", text[:end], re.I)


def _after(text: str, start: int, pattern: str) -> re.Match[str] | None:
    """``pattern`` starting right at ``start``."""
    return re.match(pattern, text[start:], re.I)


def find_dates(text: str, today: date) -> list[DateStatement]:
    """Every posting-date window ``text`` states, left to right, spans not overlapping."""
    points = _points(text, today)
    out: list[DateStatement] = []
    used = -1
    i = 0
    while i < len(points):
        p = points[i]
        if p.start < used:
            i += 1
            continue
        nxt = points[i + 1] if i + 1 < len(points) else None
        # A range: "between A and B", "from A to B", "A到B", "2026-11-01 ~ 2026-11-15".
        if nxt is not None and re.fullmatch(_TO, text[p.end:nxt.start], re.I) and (
                (p.has_day and nxt.has_day) or _about_postings(text, p.start, nxt.end)):
            lead = _before(text, p.start, _BETWEEN + r"|" + _CUE_BEFORE + _BETWEEN)
            # (a cue the statement before took stays its own: spans never overlap)
            start = max(lead.start() if lead and lead.group(0) else p.start, min(used, p.start))
            tail = _after(text, nxt.end, _CUE_AFTER)
            end = nxt.end + (tail.end() if tail else 0)
            first, last = p.first, nxt.last
            if not nxt.has_year and p.has_year:
                # "2024年11月到1月": the end is the first such month after the start, not the latest one
                try:
                    last = date(p.first.year, nxt.last.month, nxt.last.day)
                    if last < p.first:
                        last = date(p.first.year + 1, nxt.last.month, nxt.last.day)
                except ValueError:   # February 29th in a year without one
                    last = date(p.first.year + (nxt.last.month < p.first.month), nxt.last.month, 28)
            if first <= last:
                out.append(DateStatement(start, end, first, last))
                used = end
                i += 2
                continue
        statement = _bounded(text, p)
        if statement is not None:
            if statement.start < used:
                statement = replace(statement, start=max(used, p.start))
            out.append(statement)
            used = statement.end
        i += 1
    return out


def _bounded(text: str, p: _Point) -> DateStatement | None:
    """One date with the words that bound it or relate it to posting, None when none do."""
    cue_before = _before(text, p.start, _CUE_BEFORE + r"(?:" + _FROM_BEFORE + r"|" + _UNTIL_BEFORE + r")?")
    from_before = _before(text, p.start, _FROM_BEFORE)
    until_before = _before(text, p.start, _UNTIL_BEFORE)
    from_after = _after(text, p.end, _FROM_AFTER)
    until_after = _after(text, p.end, _UNTIL_AFTER)
    cue_after = _after(text, p.end, _CUE_AFTER)
    start = min([p.start] + [m.start() for m in (cue_before, from_before, until_before) if m is not None])
    end = max([p.end] + [p.end + m.end() for m in (from_after, until_after, cue_after) if m is not None])
    word = (from_before.group(0).strip().lower() if from_before else "")
    if (from_before or from_after or until_before or until_after) and not (
            p.has_day or cue_before or cue_after or _about_postings(text, p.start, p.end)):
        return None
    if from_before is not None or from_after is not None:
        first = p.last + timedelta(days=1) if word == "after" else p.first
        tail = _after(text, end, _CUE_AFTER)
        return DateStatement(start, end + (tail.end() if tail else 0), first, None)
    if until_before is not None or until_after is not None:
        ends_before = (until_before is not None and until_before.group(0).strip().lower().startswith("before")) \
            or until_after is not None
        last = p.first - timedelta(days=1) if ends_before else p.last
        tail = _after(text, end, _CUE_AFTER)
        return DateStatement(start, end + (tail.end() if tail else 0), None, last)
    if cue_before is not None or cue_after is not None:
        return DateStatement(start, end, p.first, p.last)
    return None


def _about_postings(text: str, start: int, end: int) -> bool:
    """Whether the clause around ``text[start:end]`` speaks of postings (``_POSTING_WORD``)."""
    before = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, end)
    clause = text[before[-1] if before else 0:after.start() if after else len(text)]
    return bool(_POSTING_WORD.search(clause))

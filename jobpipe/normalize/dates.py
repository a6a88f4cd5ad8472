"""Posting dates in every shape sources use -> timezone-aware UTC datetimes.

Absolute dates (ISO 8601, "2021-04-01 12:00:00", date-only, epoch seconds or milliseconds) and
relative ones ("Posted Yesterday", "3 days ago", "30+ days ago", "今天 09:15", "昨天", "3天前")
resolved against the fetch time, because a relative date means nothing without it. A naive
time is taken as UTC unless it is a Chinese board's wall-clock time, which is Beijing time.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache

_CHINA = timezone(timedelta(hours=8))

# Epochs: seconds until ~2286, milliseconds after; anything before 1990 or absurd is rejected.
_MIN = datetime(1990, 1, 1, tzinfo=timezone.utc)
_MAX = datetime(2200, 1, 1, tzinfo=timezone.utc)

_UNITS = {
    "second": 1 / 86400, "sec": 1 / 86400, "minute": 1 / 1440, "min": 1 / 1440, "hour": 1 / 24, "hr": 1 / 24,
    "day": 1, "week": 7, "wk": 7, "month": 30, "mo": 30, "year": 365, "yr": 365,
    "秒": 1 / 86400, "分钟": 1 / 1440, "分鐘": 1 / 1440, "小时": 1 / 24, "小時": 1 / 24, "天": 1, "日": 1,
    "周": 7, "週": 7, "星期": 7, "个月": 30, "個月": 30, "月": 30, "年": 365,
}
_EN_AGO = re.compile(r"(\d+)\s*\+?\s*(second|sec|minute|min|hour|hr|day|week|wk|month|mo|year|yr)s?\s*\+?\s*ago", re.I)
_ZH_AGO = re.compile(r"(\d+)\s*\+?\s*(秒|分钟|分鐘|小时|小時|天|日|周|週|星期|个月|個月|月|年)\s*(?:前|以前)")
_TIME = re.compile(r"(\d{1,2})[:：](\d{2})")
_YMD = re.compile(r"(\d{4})[-/.年](\d{1,2})[-/.月](\d{1,2})日?(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?")
_MD = re.compile(r"^(\d{1,2})[-/月](\d{1,2})日?(?:\s+(\d{1,2}):(\d{2}))?$")


def _aware(dt: datetime, default_tz: timezone = timezone.utc) -> datetime:
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=default_tz)
    return dt.astimezone(timezone.utc)


def _sane(dt: datetime | None) -> datetime | None:
    if dt is None or not (_MIN <= dt <= _MAX):
        return None
    return dt


def _from_epoch(value: float) -> datetime | None:
    if not math.isfinite(value) or value <= 0:
        return None
    seconds = value / 1000 if value > 1e11 else value
    try:
        return _sane(datetime.fromtimestamp(seconds, tz=timezone.utc))
    except (OverflowError, OSError, ValueError):
        return None


def parse_date(value: str | int | float | datetime | date | None, *, fetched_at: datetime) -> datetime | None:
    """A tz-aware UTC datetime, or None when the value is empty or unreadable."""
    fetched = _aware(fetched_at)
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return _sane(_aware(value))
    if isinstance(value, date):
        return _sane(datetime(value.year, value.month, value.day, tzinfo=timezone.utc))
    if isinstance(value, (int, float)):
        return _from_epoch(float(value))
    return _parse_text(str(value), fetched)


@lru_cache(maxsize=8192)
def _parse_text(value: str, fetched: datetime) -> datetime | None:
    """Cached: a source's postings share a handful of date strings ("2021-04-14", "3 days ago"),
    and the result (an immutable datetime) depends only on the text and the fetch time."""
    text = unicodedata.normalize("NFKC", value).strip()
    if not text:
        return None
    absolute, moment = _absolute(text)
    return moment if absolute else _relative(text, fetched)


def _absolute(text: str) -> tuple[bool, datetime | None]:
    """(True, the moment) when ``text`` is written as an absolute date (None if it is impossible);
    (False, None) when it is not: it may then be a relative one."""
    if re.fullmatch(r"\d{9,13}(\.\d+)?", text):
        return True, _from_epoch(float(text))
    iso = text.replace("Z", "+00:00") if text.endswith("Z") else text
    try:
        return True, _sane(_aware(datetime.fromisoformat(iso)))
    except ValueError:
        pass
    chinese = bool(re.search(r"[\u4e00-\u9fff]", text))
    m = _YMD.search(text)
    if m:
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        hh, mm, ss = int(m.group(4) or 0), int(m.group(5) or 0), int(m.group(6) or 0)
        try:
            return True, _sane(_aware(datetime(y, mo, d, hh, mm, ss), _CHINA if chinese else timezone.utc))
        except ValueError:
            return True, None
    return False, None


def anchored_on_fetch(value: str | int | float | datetime | date | None) -> bool:
    """Whether ``value`` is a relative date ("3天前", "Posted Yesterday", "03-05"): one that names a
    moment only together with the fetch time, so two fetches on different days read it as different
    dates. Absolute dates, epochs and unreadable values are not."""
    if not isinstance(value, str):
        return False
    text = unicodedata.normalize("NFKC", value).strip()
    if not text or _absolute(text)[0]:
        return False
    return _relative(text, datetime(2000, 6, 15, 12, tzinfo=timezone.utc)) is not None


#: A deadline stated as a bare day ("2026-12-02", "2026/12/2", "2026年12月2日"): no time of day.
_DAY_ONLY = re.compile(r"\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?")


def parse_deadline(value: str | int | float | datetime | date | None, *, fetched_at: datetime) -> datetime | None:
    """The moment a posting stops being valid (``valid_through``), as a tz-aware UTC datetime.

    A deadline given as a bare day means *through* that day: a posting "valid through
    2026-12-02" is still open all that day, so the moment is the start of the next day (in the
    day's own time zone: Beijing time for a Chinese board). Read as midnight at its start, as a
    posted date is, it would close a day early. A deadline with a time of day is taken as given.
    """
    moment = parse_date(value, fetched_at=fetched_at)
    if moment is None:
        return None
    if isinstance(value, date) and not isinstance(value, datetime):
        return _sane(moment + timedelta(days=1))
    if isinstance(value, str) and _DAY_ONLY.fullmatch(unicodedata.normalize("NFKC", value).strip()):
        return _sane(moment + timedelta(days=1))
    return moment


def _start_of_day(moment: datetime) -> datetime:
    """A day-granular relative date ("today", "3 days ago") names a day, not a time.

    Taking the fetch's time of day would move the date with every fetch -- "3 days ago" read at
    02:00 and at 14:00, or "3 days ago" today and "4 days ago" tomorrow -- and rewrite the posting
    on every run. The start of the day is the same on all of them.
    """
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _relative(text: str, fetched: datetime) -> datetime | None:
    low = text.lower()
    local = fetched.astimezone(_CHINA) if re.search(r"[\u4e00-\u9fff]", text) else fetched
    day_offset: int | None = None
    if re.search(r"just now|刚刚|剛剛|moments? ago|just posted", low):
        return _sane(fetched)
    if re.search(r"today|今天|今日|new\b", low):
        day_offset = 0
    elif re.search(r"yesterday|昨天|昨日", low):
        day_offset = 1
    elif re.search(r"前天", low):
        day_offset = 2
    if day_offset is not None:
        base = local - timedelta(days=day_offset)
        t = _TIME.search(text)
        if t and int(t.group(1)) < 24 and int(t.group(2)) < 60:
            base = base.replace(hour=int(t.group(1)), minute=int(t.group(2)), second=0, microsecond=0)
        else:
            base = _start_of_day(base)
        return _sane(base.astimezone(timezone.utc))
    m = _EN_AGO.search(low) or _ZH_AGO.search(text)
    if m:
        n = int(m.group(1))
        days = _UNITS.get(m.group(2).lower(), _UNITS.get(m.group(2), 1)) * n
        if days > 365 * 50:
            return None
        if days < 1:   # "2 hours ago": precise
            return _sane(fetched - timedelta(days=days))
        return _sane(_start_of_day(local - timedelta(days=days)).astimezone(timezone.utc))
    m = _MD.match(text)
    if m:
        month, day = int(m.group(1)), int(m.group(2))
        try:
            dt = datetime(local.year, month, day, int(m.group(3) or 0), int(m.group(4) or 0), tzinfo=local.tzinfo)
        except ValueError:
            return None
        if dt > local + timedelta(days=1):   # "12-30" read in January is last year's
            dt = dt.replace(year=dt.year - 1)
        return _sane(dt.astimezone(timezone.utc))
    return None

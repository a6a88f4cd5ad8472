"""Salary text and structured salary objects -> one :class:`Salary` (amounts as stated, whole units).

Sources write pay as "15-25K·14薪", "1-1.5万/月", "6千-8千", "$53K-$91K (Glassdoor est.)",
"4000-6000U/月", "HKD 55-90K/M" or as objects (schema.org MonetaryAmount, Lever ``salaryRange``,
Recruitee ``salary``). Amounts are kept for the period the source stated (a monthly salary stays
monthly: agents answer "薪资多少" in the posting's own terms); :func:`annualize` gives the yearly
range for comparisons across periods.

Wrong numbers are worse than none: an experience range ("2.3-5年"), a percentage, a time of day or
a range whose minimum exceeds its maximum for no recoverable reason yields no amounts.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, cast

from jobpipe.models import Salary
from jobpipe.normalize.regex_guard import guarded

#: Currencies a Salary may carry (ISO 4217 plus USDT, the stablecoin crypto employers pay in).
KNOWN_CURRENCIES = frozenset(
    "CNY USD USDT HKD EUR GBP SGD JPY TWD MYR AUD CAD CHF INR KRW AED NZD THB PHP VND SEK NOK DKK PLN BRL MXN ILS IDR RUB TRY".split()
)
PERIODS = ("hour", "day", "month", "year")
WORKDAYS_PER_YEAR = 250
WORK_HOURS_PER_YEAR = 2080

_NEGOTIABLE_RE = re.compile(
    r"面议|面議|面谈|面談|可谈|可議|可议|详聊|詳聊|私聊|再议|待遇优厚|具体.{0,4}(沟通|商议|详谈)|薪资?open|\bopen\b|negotiable|"
    r"competitive|\bdoe\b|depending on experience|commensurate|具备竞争力|有竞争力|具有竞争力|颇有竞争力|行业水[准平]|"
    r"可聊|open可|薪[资水酬]\s*open|以能定薪|根据能力",
    re.I,
)

_NUM = r"\d+(?:[.,]\d+)*"
_UNIT = r"(?:k|千|万|萬|w|million|mn|lakhs?|lacs?|lpa|crores?|m)(?=[^a-z]|$|u|rmb|cny|hkd|sgd)"
_CUR_PREFIX = (
    r"(?:US\$|USD\s*\$|HK\$|HKD\s*\$?|S\$|SGD|NT\$|NTD|A\$|AUD|C\$|CAD|NZ\$|NZD|R\$|BRL|MX\$|MXN|RMB|CNY|USDT|USD|EUR|GBP|"
    r"JPY|CHF|ILS|INR|KRW|PLN|SEK|NOK|DKK|AED|RM|¥|￥|\$|£|€|₪|₹|₩|₽|₱|฿|₫|₺)"
)
_RANGE_RE = re.compile(
    rf"(?P<pre>{_CUR_PREFIX})?\s*(?P<a>{_NUM})\s*(?P<ua>{_UNIT})?\s*(?P<ca>U|USDT|USD|RMB)?\s*(?:/\s*(?:月|month|m)\s*)?"
    rf"\s*(?P<sep>-|~|〜|～|—|–|至|到|to)\s*"
    rf"(?P<pre2>{_CUR_PREFIX})?\s*(?P<b>{_NUM})\s*(?P<ub>{_UNIT})?",
    re.I,
)
_SINGLE_RE = re.compile(rf"(?P<pre>{_CUR_PREFIX})?\s*(?P<a>{_NUM})\s*(?P<ua>{_UNIT})?", re.I)

_UNIT_VALUE = {"k": 1e3, "千": 1e3, "万": 1e4, "萬": 1e4, "w": 1e4, "m": 1e6, "million": 1e6, "mn": 1e6,
               # Indian numbering: a lakh is 100,000 ("12 LPA" = 12 lakh per annum), a crore 100 lakh
               "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "lpa": 1e5, "crore": 1e7, "crores": 1e7}

# What follows a number that makes it something other than money.
_NOT_MONEY_AFTER = re.compile(
    r"^\s*(?:%|％|岁|歲|人(?!民)|am\b|pm\b|点|點|:\d|号|號|楼|樓|h\b(?!our)|个月(?!薪)|天(?!/)|日(?!薪)|周|小时(?!/)|"
    r"次|位|家|名|届|級|级|月\s*(?:工资|薪水|年终)|倍)",
    re.I,
)
_YEARS_AFTER = re.compile(r"^\s*(?:年(?![薪包])|years?\b|yrs?\b|yoe\b)", re.I)
_CURRENCY_WORD = re.compile(r"^\s*(?:usdt|usd|u|rmb|cny|hkd|sgd|元|美金|美元|港币|人民币)?", re.I)
_NOT_MONEY_BEFORE = re.compile(r"(?:gmt|utc|年终奖|年終獎|奖金|獎金|bonus|提成|equity|期权|股票|l|p|v|第|top|前)\s*[+\-]?\s*$", re.I)
_EXPERIENCE_BEFORE = re.compile(r"(经验|經驗|工作|experience)\s*$", re.I)

# Lakhs and crores are Indian numbering; "Rs." before an amount is the rupee.
_INR = re.compile(r"₹|\binr\b|rupees?|\blpa\b|卢比|(?-i:\bRs\.?|\bRS\.)\s*(?=\d)|\d\s*(?:lakhs?|lacs?|crores?)\b", re.I)
_CURRENCY_TOKENS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"usdt|\d\s*u\b|\d\s*/\s*u\b|\du(?=[/\s，,。+（(以每\-~～—–]|$)|\bu\s*(?:/|每|以)|u\+token|发u|發u|\d\s*k\s*u\b|\dku\b", re.I), "USDT"),
    (re.compile(r"hk\$|hkd|港币|港幣|港元|港紙", re.I), "HKD"),
    (re.compile(r"s\$|sgd|新币|新元|新加坡元", re.I), "SGD"),
    (re.compile(r"nt\$|ntd|twd|新台币|台币", re.I), "TWD"),
    (re.compile(r"a\$|aud|澳元|澳币", re.I), "AUD"),
    (re.compile(r"c\$|cad|加元|加币", re.I), "CAD"),
    (re.compile(r"(?<![a-z])rm\s*\d|myr|马币|令吉", re.I), "MYR"),
    (re.compile(r"nz\$|\bnzd\b", re.I), "NZD"),
    (re.compile(r"r\$|\bbrl\b|\breais\b", re.I), "BRL"),
    (re.compile(r"mx\$|\bmxn\b", re.I), "MXN"),
    (re.compile(r"us\$|usd|美金|美元|\$|dollars?", re.I), "USD"),
    (re.compile(r"rmb|cny|人民币|人民幣|元|块|¥|￥", re.I), "CNY"),
    (re.compile(r"£|gbp|英镑|pounds?", re.I), "GBP"),
    (re.compile(r"€|eur\b|euros?|欧元", re.I), "EUR"),
    (re.compile(r"jpy|円|日元", re.I), "JPY"),
    # Not "won", "real", "php", "nis", "try", "kr": ordinary words, a language, or ambiguous.
    (re.compile(r"₪|\bils\b|shekels?|谢克尔", re.I), "ILS"),
    (_INR, "INR"),
    (re.compile(r"₩|\bkrw\b|韩元", re.I), "KRW"),
    (re.compile(r"\bchf\b|swiss francs?|瑞士法郎", re.I), "CHF"),
    (re.compile(r"zł|\bpln\b|złoty|zloty", re.I), "PLN"),
    (re.compile(r"\bsek\b|swedish kronor", re.I), "SEK"),
    (re.compile(r"\bnok\b|norwegian kroner", re.I), "NOK"),
    (re.compile(r"\bdkk\b|danish kroner", re.I), "DKK"),
    (re.compile(r"\baed\b|dirhams?|迪拉姆", re.I), "AED"),
    (re.compile(r"₽|\brub\b|рубл|卢布", re.I), "RUB"),
    (re.compile(r"₱", re.I), "PHP"),
    (re.compile(r"฿|\bthb\b|baht|泰铢", re.I), "THB"),
    (re.compile(r"₫|\bvnd\b|越南盾", re.I), "VND"),
    (re.compile(r"₺", re.I), "TRY"),
]

_PERIOD_TOKENS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"/\s*(?:小?时|時|h|hr|hour)\b|/\s*(?:小?时|時)|per\s*hour|an\s*hour|hourly|/hr|时薪|時薪|每小时|元/时|每时", re.I), "hour"),
    (re.compile(r"/\s*(?:天|日|day)|per\s*day|a\s*day|daily|日薪|每天|每日|元/天", re.I), "day"),
    (re.compile(r"per\s*week|a\s*week|weekly|/\s*(?:week|wk|周)|周薪|每周", re.I), "week"),
    (re.compile(r"/\s*(?:月|mo|month|m)\b|/\s*月|per\s*month|a\s*month|monthly|月薪|每月|/月|月base|base月|\bmonth\b|/mth|月\b|月\)|月）|/\s*m$", re.I), "month"),
    (re.compile(r"/\s*(?:年|yr|year|y|annum)\b|/\s*年|per\s*(?:year|annum)|a\s*year|annual(?:ly)?|yearly|年薪|年包|总包|總包|/年|/y\b|年收入|\bpa\b|p\.a\.|\dlpa\b|\slpa\b", re.I), "year"),
]

_PAID_IN = re.compile(
    r"(?<![\dkw万千])(?<![\dkw万千]\s)(?:[以用]\s*)?(?:usdt|u)\s*(?:的形式)?\s*(?:发放|结算|發放|發薪|发薪|支付)|(?:可以?|也可以|可)?发\s*(?:usdt|u)(?![a-z])|"
    r"(?:或|or)?\s*(?:等值|等价|等额|equivalent(?:ly)?(?:\s*paid)?\s*in)\s*(?:usdt|u)(?![a-z])|paid in usdt|usdt\s*payment",
    re.I,
)
_STRONG_YEAR = re.compile(r"年薪|年包|总包|總包|full package|total package|total comp|annual", re.I)
_MONTHS_RE = [
    re.compile(r"(\d{2}(?:\.\d)?)\s*[~\-]\s*\d{2}(?:\.\d)?\s*(?:个月)?\s*(?:薪|个月)"),
    re.compile(r"(\d{2}(?:\.\d)?)\s*(?:个月)?\s*薪"),
    re.compile(r"[x×*✕]\s*(\d{2}(?:\.\d)?)\s*(?:薪|个月|個月|months?|m\b|$|[,，\s+])", re.I),
    re.compile(r"(?<![年终奖獎金\d])(\d{2})\s*(?:个月|個月)(?!.{0,3}(?:奖|獎|bonus))"),
]


_DOT_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")


def _to_float(text: str, unit: str | None = None) -> float | None:
    if not unit and _DOT_THOUSANDS.fullmatch(text):
        # "R$ 8.000", "40.000 TL", "1.200.000": dots as thousands separators (no salary states three
        # decimals); with a unit ("1.500万", "1.500k") the dot is a decimal point
        text = text.replace(".", "")
    t = text.replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


def _currency_in(text: str) -> str | None:
    for pattern, code in _CURRENCY_TOKENS:
        if pattern.search(text):
            return code
    return None


def _first_of(tokens: list[tuple[re.Pattern[str], str]]) -> tuple[re.Pattern[str], dict[str, str]]:
    """One pattern for "the token that occurs first; at one position, the first listed" and its group -> value.

    The alternation does in one scan what searching each token and keeping the earliest start did:
    at the leftmost position where any token matches, the first alternative that matches there is
    the first listed token starting there. (Every token pattern is case-insensitive and has no
    groups of its own.)
    """
    if any(pattern.groups or not pattern.flags & re.I for pattern, _ in tokens):
        raise ValueError("token patterns must be case-insensitive and without groups")
    names = {f"t{i}": value for i, (_, value) in enumerate(tokens)}
    alternation = "|".join(f"(?P<t{i}>{pattern.pattern})" for i, (pattern, _) in enumerate(tokens))
    return guarded(re.compile(alternation, re.I)), names


_FIRST_CURRENCY, _CURRENCY_OF_GROUP = _first_of(_CURRENCY_TOKENS)
_FIRST_PERIOD, _PERIOD_OF_GROUP = _first_of(_PERIOD_TOKENS)


def _first_currency(text: str) -> str | None:
    """The currency whose token appears first in ``text``."""
    m = _FIRST_CURRENCY.search(text)
    # every alternative is a named group (_first_of): a match always names one
    return None if m is None else _CURRENCY_OF_GROUP[cast(str, m.lastgroup)]


def _period_in(text: str) -> str | None:
    m = _FIRST_PERIOD.search(text)
    return None if m is None else _PERIOD_OF_GROUP[cast(str, m.lastgroup)]


def _months_per_year(text: str) -> int | None:
    for pattern in _MONTHS_RE:
        for m in pattern.finditer(text):
            value = float(m.group(1))
            if 12 <= value <= 24:
                return int(value)
    return None


def _unit_factor(unit: str | None) -> float:
    if not unit:
        return 1.0
    return _UNIT_VALUE.get(unit.lower(), 1.0)


#: Rough units of a currency per US dollar: only to judge an amount's size (its period, whether
#: it is a plausible pay), never to convert one.
_PER_USD = {"JPY": 100.0, "KRW": 1000.0, "TWD": 30.0, "INR": 80.0, "PHP": 50.0, "THB": 35.0,
            "IDR": 15000.0, "VND": 25000.0, "CNY": 7.0, "HKD": 7.8, "MYR": 4.5, "RUB": 90.0, "ILS": 3.7,
            "BRL": 5.0, "MXN": 17.0, "PLN": 4.0, "SEK": 10.0, "NOK": 10.0, "DKK": 7.0, "AED": 3.7,
            "TRY": 30.0}


def _guess_period(value: float, currency: str | None) -> str:
    """The period a bare amount most plausibly refers to, from its size in that currency."""
    scale = _PER_USD.get(currency or "", 1.0)
    usd = value / scale
    if usd < 60:
        return "hour"
    if usd < 100 and currency in ("CNY", "HKD", "TWD", "JPY"):
        return "day"
    if usd < 25000:
        return "month"
    return "year"


#: The largest amount read as money at all; larger numbers are ids, phone numbers or typos.
MAX_AMOUNT = 1e9
#: The most a posting can plausibly pay in a year, in US dollars (roughly: see ``_PER_USD``).
#: Above it the salary is a typo, a unit mix-up ("999999999999k") or a hostile posting; it is
#: left out with a note rather than stored, filtered on and shown to agents.
MAX_ANNUAL_USD = 5_000_000


def _plausible(amount: float) -> bool:
    return 1 <= amount <= MAX_AMOUNT


def implausible_pay(salary: Salary, annual_min: float | None, annual_max: float | None) -> str | None:
    """Why ``salary`` (annualized: ``annualize(salary)``) cannot be a real pay, or None when it can be."""
    annual = max((a for a in (annual_min, annual_max) if a is not None), default=None)
    if annual is None:
        return None
    usd = annual / _PER_USD.get(salary.currency or "", 1.0)
    if usd <= MAX_ANNUAL_USD:
        return None
    stated = salary.max if salary.max is not None else salary.min
    currency = f" {salary.currency}" if salary.currency else ""
    per = f"/{salary.period}" if salary.period else ""
    return (f"salary left out: {stated:,.0f}{currency}{per} is about {usd:,.0f} USD a year, more than any "
            f"posting pays (at most {MAX_ANNUAL_USD:,} USD a year)")


def oversized_amount(text: str | None, structured: dict[str, Any] | None = None) -> float | None:
    """The first money amount in ``text`` (or a number in ``structured``) too large to be read as
    money at all (above :data:`MAX_AMOUNT`): the parsers skip it, so the posting can say why it
    has no salary. None when there is none."""
    for value in _numbers(structured, depth=0):
        if value > MAX_AMOUNT:
            return value
    if not text:
        return None
    normalized = unicodedata.normalize("NFKC", str(text))[:2000]
    for m in _SINGLE_RE.finditer(normalized):
        if _rejected(normalized, m.start("a"), m.end(), bool(m.group("ua"))):
            continue
        a = _to_float(m.group("a"), m.group("ua"))
        if a is not None and math.isfinite(a) and a * _unit_factor(m.group("ua")) > MAX_AMOUNT:
            return a * _unit_factor(m.group("ua"))
    return None


def _numbers(value: Any, depth: int) -> Iterator[float]:
    if isinstance(value, bool) or depth > 4:
        return
    if isinstance(value, (int, float)):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _numbers(inner, depth + 1)
    elif isinstance(value, list):
        for inner in value[:20]:
            yield from _numbers(inner, depth + 1)


def _window(text: str, start: int, end: int) -> str:
    return text[max(0, start - 10):min(len(text), end + 16)]


def _find_amounts(text: str) -> tuple[float | None, float | None, int, int, bool] | None:
    """(min, max, start, end, fixed) of the first money-like range or single amount."""
    for m in _RANGE_RE.finditer(text):
        if _rejected(text, m.start("a"), m.end(), bool(m.group("ua") or m.group("ub"))):
            continue
        ua, ub = m.group("ua"), m.group("ub")
        unit = ua or ub
        a, b = _to_float(m.group("a"), unit), _to_float(m.group("b"), unit)
        if a is None or b is None:
            continue
        if ua and ua.lower() == "m" and not ub:
            ua = None  # "20K/m" style period leak; "/M" after the first number is a period, not million
        if ub and ub.lower() == "m" and _period_m(text, m.end("ub")):
            ub = None
            if ua and ua.lower() == "m":
                ua = None
        fa, fb = _unit_factor(ua), _unit_factor(ub)
        if not ua and ub:
            if a > b:
                return (math.nan, math.nan, m.start(), m.end(), False)   # "50-20K": no sane reading
            fa = fb
        lo, hi = a * fa, b * fb
        fixed = False
        if lo > hi:
            # "6,000k ~ 10,000": a unit on one side only, dropping it gives a sane range
            if ua and not ub and a * 1.0 <= hi:
                lo, fixed = a, True
            else:
                return (math.nan, math.nan, m.start(), m.end(), False)
        if not (_plausible(lo) and _plausible(hi)):
            continue
        return lo, hi, m.start(), m.end(), fixed
    for m in _SINGLE_RE.finditer(text):
        if _rejected(text, m.start("a"), m.end(), bool(m.group("ua"))):
            continue
        unit = m.group("ua")
        a = _to_float(m.group("a"), unit)
        if a is None:
            continue
        if unit and unit.lower() == "m" and _period_m(text, m.end("ua")):
            unit = None
        value = a * _unit_factor(unit)
        if not _plausible(value) or (not unit and not m.group("pre") and value < 10):
            continue
        if not unit and not m.group("pre") and not _currency_in(_window(text, m.start(), m.end())) and value < 100:
            continue
        after = text[m.end():m.end() + 14]
        after = _CURRENCY_WORD.sub("", after, count=1)   # anchored and all optional: drops a leading currency word
        before = text[max(0, m.start() - 8):m.start()]
        if re.match(r"\s*(?:\+(?!\s*(?:提成|奖金|bonus|commission|token|期权|股|equity|绩效|季度|年终|\d))|以上|起|及以上|and above|or more|above|plus)", after, re.I) or re.search(r"(?:from|at least|最低|不低于)\s*\S*$", before, re.I):
            return value, None, m.start(), m.end(), False
        if re.match(r"\s*(?:以下|以内|以內|内|within|or less|封顶)", after, re.I) or re.search(r"(?:up to|upto|最高|上限可?达?|不超过|max(?:imum)?)\s*\S*$", before, re.I):
            return None, value, m.start(), m.end(), False
        return value, value, m.start(), m.end(), False
    return None


def _period_m(text: str, pos: int) -> bool:
    """Whether an "m" right after a number is a period ("/m", "K/M", "20-40K/month") rather than million."""
    before = text[max(0, pos - 2):pos]
    return "/" in before


def _rejected(text: str, start: int, end: int, has_unit: bool = False) -> bool:
    after = text[end:end + 6]
    if not has_unit and _YEARS_AFTER.match(after):
        return True
    before = text[max(0, start - 8):start]
    if _NOT_MONEY_AFTER.match(after):
        # "30年薪" never happens; "3-5年" is experience, "2-8个月" a bonus, "9am-6pm" a time
        return True
    if _NOT_MONEY_BEFORE.search(before) or _EXPERIENCE_BEFORE.search(before):
        return True
    return False


def parse_salary(
    text: str | None, structured: dict[str, Any] | None = None, *, context_currency: str | None = None
) -> Salary | None:
    """A Salary from a structured object (preferred when it has amounts) or from text; None if neither says anything.

    ``context_currency`` is the currency to assume when the text names none (e.g. CNY for a
    Chinese posting in China). A result with no amounts has ``negotiable=True``.
    """
    if structured:
        result = parse_structured_salary(structured, context_currency=context_currency)
        if result is not None and (result.min is not None or result.max is not None):
            if result.negotiable is False and text and _NEGOTIABLE_RE.search(text):
                result.negotiable = True
            if text and stated_period(structured) is None:
                # Greenhouse's pay range carries its period only in its label ("Hourly rate"): a
                # period the text states beats one guessed from the amount's size
                said = _period_in(unicodedata.normalize("NFKC", str(text)))
                if said is not None and said != "week":
                    result = with_period(result, said)
            return result
        if result is not None and not text:
            return result
    if not text or not str(text).strip():
        return None
    found = _parse_text_cached(str(text), context_currency)
    return None if found is None else dataclasses.replace(found)   # a copy: callers own their Salary


@lru_cache(maxsize=8192)
def _parse_text_cached(raw: str, context_currency: str | None) -> Salary | None:
    """Salary texts repeat across a source's postings ("15-25K·13薪", "$53K-$91K (Glassdoor est.)"),
    so each (text, context currency) is parsed once; parse_salary hands out copies."""
    return _parse_text(raw, context_currency)


#: "1万5", "1万5千", "2w5", "8千5": a spoken tenth after the unit, written as "1.5万" by others.
_UNIT_TENTH = re.compile(r"(?<![\d.,])(\d+)\s*([万萬wW千])(\d)(?:千)?(?![\d.,%])(?!\s*[万萬wW千kK元])")


#: "₹ 6.5 L", "Rs 12L": with the rupee named, a lone L after an amount is a lakh.
_LAKH_L = re.compile(r"(\d(?:[\d,]*\d)?(?:\.\d+)?)\s*L\b")
#: An amount counted in lakhs or crores is a year's (CTC), whatever its size in dollars.
_INDIAN_UNIT = re.compile(r"\d\s*(?:lakhs?|lacs?|lpa|crores?)\b", re.I)


def _parse_text(raw: str, context_currency: str | None) -> Salary | None:
    text = unicodedata.normalize("NFKC", raw).strip()
    text = text.replace("—", "-").replace("–", "-").replace("〜", "~").replace("～", "~")
    text = _UNIT_TENTH.sub(r"\1.\3\2", text)
    if _INR.search(text):
        text = _LAKH_L.sub(r"\1 lakh", text)   # "₹ 6.5 L"
    negotiable = bool(_NEGOTIABLE_RE.search(text))
    found = _find_amounts(text)
    if found is None:
        return Salary(negotiable=True) if negotiable else None
    lo, hi, start, end, _fixed = found
    if (lo is not None and math.isnan(lo)):
        return None
    window = _window(text, start, end)
    # "工资以USDT的形式发放", "USDT结算", "可发U": how it is paid, not what the amount is counted in
    text = _PAID_IN.sub(" ", text)
    currency = _first_currency(text[start:end + 12]) or _first_currency(text[max(0, start - 10):end]) \
        or _first_currency(text) or context_currency
    if currency is None and (re.search(r"\d\s*[万千萬wW]|薪", text)
                             or (re.search(r"[\u4e00-\u9fff]", text) and re.search(r"\d\s*[kK]", text))):
        currency = "CNY"   # 万/千/w are Chinese units; a Chinese text's "15-25K" is yuan
    tail = text[start:]
    period = _period_in(window) or _period_in(tail[:40]) or _period_in(text)
    amount = hi if hi is not None else lo
    assert amount is not None
    guessed = _guess_period(amount, currency)
    if period is None:
        period = guessed
    if guessed == "year" and _STRONG_YEAR.search(text):
        period = "year"
    if _period_in(text) is None and _INDIAN_UNIT.search(text):
        period = "year"
    months_stated = _months_per_year(text)
    if months_stated and period in ("hour", "day") and currency in (None, "CNY") and amount < 1000:
        # "40-60*16薪": a month count makes the period monthly, so the amounts are thousands
        lo = lo * 1000 if lo is not None else None
        hi = hi * 1000 if hi is not None else None
        period = "month"
    if period == "week":
        lo = lo * 52 if lo is not None else None
        hi = hi * 52 if hi is not None else None
        period = "year"
    months = _months_per_year(text) if period == "month" else None
    if months is None and period == "month" and re.search(r"年薪|年包|总包", text):
        months = None
    return Salary(
        min=_whole(lo), max=_whole(hi), currency=currency if currency in KNOWN_CURRENCIES else None,
        period=period, months_per_year=months, negotiable=negotiable,
    )


def _whole(value: float | None) -> float | None:
    if value is None:
        return None
    return float(round(value))


_INTERVALS = {
    "hour": "hour", "hourly": "hour", "per-hour-wage": "hour", "per_hour": "hour", "h": "hour",
    "day": "day", "daily": "day", "per-day-wage": "day", "per_day": "day",
    "week": "week", "weekly": "week", "per-week-salary": "week",
    "month": "month", "monthly": "month", "per-month-salary": "month", "per_month": "month", "mo": "month",
    "year": "year", "yearly": "year", "annual": "year", "annually": "year", "per-year-salary": "year",
    "per_year": "year", "yr": "year", "one-time": "year",
}


def _interval(value: Any) -> str | None:
    if not value:
        return None
    v = str(value).strip().lower().replace(" ", "-")
    if v in _INTERVALS:
        return _INTERVALS[v]
    for word in ("hour", "day", "week", "month", "year"):   # Ashby "1 YEAR", "per month"
        if word in v:
            return word
    return _period_in(str(value))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) and _plausible(float(value)) else None
    if isinstance(value, str):
        found = _find_amounts(unicodedata.normalize("NFKC", value))
        if found and found[0] is not None and not math.isnan(found[0]):
            return found[0]
    return None


_PERIOD_KEYS = ("interval", "period", "unitText", "salary_period", "unit", "frequency")
_NESTED_KEYS = ("salaryRange", "baseSalary", "salary", "compensation")


def stated_period(obj: Any) -> str | None:
    """The pay period a structured salary names itself, or None when parse_structured_salary has to
    guess it from the amount's size (a guess that reads $50-65 as a month's pay, not an hour's).

    Callers use it to decide whether a period stated elsewhere (the range's label, the description)
    may replace the guess; a period the source's own fields state is never replaced.
    """
    if not isinstance(obj, dict):
        return None
    for key in _NESTED_KEYS:
        inner = obj.get(key)
        if isinstance(inner, dict) and inner is not obj:
            found = stated_period(inner)
            if found is not None:
                return found
    components = obj.get("summaryComponents") or obj.get("components")
    if isinstance(components, list):
        for comp in components:
            found = stated_period(comp)
            if found is not None:
                return found
    found = _interval(next((obj[k] for k in _PERIOD_KEYS if obj.get(k)), None))
    if found is not None:
        return found
    value = obj.get("value")
    if isinstance(value, dict):
        return _interval(value.get("unitText") or value.get("unit"))
    if isinstance(value, str):
        return _period_in(unicodedata.normalize("NFKC", value))
    return None


def with_period(salary: Salary, period: str) -> Salary:
    """``salary`` re-read with another stated period (a copy; months_per_year only for monthly pay)."""
    if period == salary.period:
        return salary
    return dataclasses.replace(salary, period=period,
                               months_per_year=salary.months_per_year if period == "month" else None)


def parse_structured_salary(obj: dict[str, Any], *, context_currency: str | None = None) -> Salary | None:
    """schema.org MonetaryAmount, Lever ``salaryRange``, Recruitee/Ashby-style {min, max, currency, period}."""
    if not isinstance(obj, dict):
        return None
    for key in _NESTED_KEYS:
        inner = obj.get(key)
        if isinstance(inner, dict) and inner is not obj:
            found = parse_structured_salary(inner, context_currency=context_currency)
            if found:
                return found
    components = obj.get("summaryComponents") or obj.get("components")
    if isinstance(components, list):
        # Ashby: [{compensationType: "Salary", interval: "1 YEAR", currencyCode, minValue, maxValue}, equity...]
        salaries = [c for c in components if isinstance(c, dict)
                    and str(c.get("compensationType", "salary")).lower() in ("salary", "base", "base salary")]
        for comp in salaries:
            found = parse_structured_salary(comp, context_currency=context_currency)
            if found and (found.min is not None or found.max is not None):
                return found
    currency = obj.get("currency") or obj.get("currencyCode") or obj.get("salary_currency") or context_currency
    period = _interval(next((obj[k] for k in _PERIOD_KEYS if obj.get(k)), None))
    value = obj.get("value")
    lo = _number(obj.get("min") if obj.get("min") is not None else obj.get("minValue", obj.get("salary_min")))
    hi = _number(obj.get("max") if obj.get("max") is not None else obj.get("maxValue", obj.get("salary_max")))
    if isinstance(value, dict):
        lo = lo if lo is not None else _number(value.get("minValue", value.get("min")))
        hi = hi if hi is not None else _number(value.get("maxValue", value.get("max")))
        period = period or _interval(value.get("unitText") or value.get("unit"))
        if lo is None and hi is None:
            single = value.get("value")
            if isinstance(single, str):
                return _parse_text(single, str(currency) if currency else None)
            lo = hi = _number(single)
    elif isinstance(value, str) and lo is None and hi is None:
        parsed = _parse_text(value, str(currency).upper() if currency else None)
        if parsed and period and parsed.period != period and parsed.min is not None:
            parsed.period = period if period != "week" else parsed.period
        return parsed
    elif value is not None and lo is None and hi is None:
        lo = hi = _number(value)
    if lo is None and hi is None:
        summary = obj.get("summary") or obj.get("compensationTierSummary") or obj.get("text")
        if isinstance(summary, str) and summary.strip():
            return _parse_text(summary, str(currency).upper() if currency else None)
        return None
    if lo is not None and hi is not None and lo > hi:
        return None
    cur = str(currency).upper().strip() if currency else None
    if cur in ("RMB", "¥", "￥"):
        cur = "CNY"
    if cur == "$":
        cur = "USD"
    amount = hi if hi is not None else lo
    assert amount is not None
    period = period or _guess_period(amount, cur)
    if period == "week":
        lo, hi, period = (lo * 52 if lo else None), (hi * 52 if hi else None), "year"
    months = obj.get("months") if obj.get("months") is not None else obj.get("months_per_year")
    months = int(months) if isinstance(months, (int, float)) and not isinstance(months, bool) and 12 <= months <= 24 else None
    return Salary(min=_whole(lo), max=_whole(hi), currency=cur if cur in KNOWN_CURRENCIES else None, period=period,
                  months_per_year=months if period == "month" else None)


def annualize(salary: Salary | None) -> tuple[float | None, float | None]:
    """(min, max) per year in the salary's own currency: month x months_per_year (12 by default),
    day x 250 workdays, hour x 2080 hours, year as is."""
    if salary is None or salary.period not in PERIODS:
        return None, None
    factor = {
        "hour": WORK_HOURS_PER_YEAR,
        "day": WORKDAYS_PER_YEAR,
        "month": salary.months_per_year or 12,
        "year": 1,
    }[salary.period]
    lo = salary.min * factor if salary.min is not None else None
    hi = salary.max * factor if salary.max is not None else None
    return lo, hi

"""PostingFields (as the source wrote them) -> NormalizedPosting (one schema for every source).

Every parsing decision lives in the small parser modules; this module only decides which input
feeds which parser and how the parsers' answers inform each other (a posting's country picks
the currency a bare "15-25K" is in; the title can override a generic employment type).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterator
from datetime import datetime, timezone
from functools import lru_cache

import ahocorasick_rs

from jobpipe.hashing import content_hash
from jobpipe.models import ORIGIN_FIELDS, NormalizedPosting, PostingFields, Salary
from jobpipe.normalize.caps import cap_description, cap_fields
from jobpipe.normalize.dates import parse_date, parse_deadline
from jobpipe.normalize.experience import parse_degree, parse_experience
from jobpipe.normalize.job_type import job_type_and_origin, parse_seniority
from jobpipe.normalize.location import resolve_locations, title_places
from jobpipe.normalize.regex_guard import guarded
from jobpipe.normalize.salary import (
    annualize,
    implausible_pay,
    oversized_amount,
    parse_salary,
    stated_period,
    with_period,
)
from jobpipe.normalize.skills import job_skills
from jobpipe.normalize.statements import (
    labelled_lines,
    mode_of_value,
    remote_only_among_benefits,
    stated_mode,
    states_hybrid,
    temporarily_remote,
)
from jobpipe.normalize.text import clean_inline, clean_text, detect_language, repair_cell

#: Currency a bare amount is in, by the posting's country.
COUNTRY_CURRENCY = {
    "CN": "CNY", "US": "USD", "HK": "HKD", "SG": "SGD", "GB": "GBP", "TW": "TWD", "JP": "JPY", "MY": "MYR",
    "AU": "AUD", "CA": "CAD", "CH": "CHF", "IN": "INR", "KR": "KRW", "AE": "AED", "NZ": "NZD",
    "DE": "EUR", "FR": "EUR", "IE": "EUR", "NL": "EUR", "ES": "EUR", "IT": "EUR", "PT": "EUR", "FI": "EUR",
    "AT": "EUR", "BE": "EUR", "GR": "EUR",
}

# Glassdoor appends the rating to the company name ("Acme\n3.8"); other boards add "(Remote)" etc.
_COMPANY_RATING = re.compile(r"\s*\n\s*\d(?:\.\d)?\s*$")
_MULTISPACE = re.compile(r"\s+")

# Words near which a description states experience/degree requirements (avoids parsing whole texts).
_EXPERIENCE_HINT = ("经验", "經驗", "experience", "年以上", "years", "经历", "經歷", "应届", "應屆")
_DEGREE_HINT = ("学历", "學歷", "本科", "硕士", "博士", "大专", "degree", "bachelor", "master", "phd", "ph.d", "bs/", "bs ", "ms ",
                "b.s.", "m.s.", "b.a.", "mba", "msc", "bsc", "m.sc", "b.sc", "high school", "diploma", "ged ")



def clean_company(name: str | None) -> str | None:
    """Company name without rating suffixes, invisible characters or surrounding noise."""
    if not name:
        return None
    return _clean_company(str(name))


@lru_cache(maxsize=8192)
def _clean_company(name: str) -> str | None:
    """Cached: a batch names each company many times (949 names in the 4,825 eval postings)."""
    text = unicodedata.normalize("NFKC", name)
    text = _COMPANY_RATING.sub("", text)
    text = clean_inline(text).strip(" -|,·")
    return text or None


def clean_title(title: str | None) -> str:
    if not title:
        return ""
    return _clean_title(str(title))


#: Cached: titles repeat within a batch (a quarter of the eval postings share a title).
_clean_title = lru_cache(maxsize=8192)(clean_inline)


@lru_cache(maxsize=8192)
def _clean_location(raw: str) -> str | None:
    """A location field as one line ("Beijing\nShanghai" -> "Beijing / Shanghai"); cached, since a
    batch repeats a few hundred location strings."""
    return clean_text(raw).replace("\n", " / ") or None


@lru_cache(maxsize=1)
def _hint_automaton() -> tuple[ahocorasick_rs.AhoCorasick, list[str]]:
    words = list(dict.fromkeys(_EXPERIENCE_HINT + _DEGREE_HINT))
    return ahocorasick_rs.AhoCorasick(words, implementation=ahocorasick_rs.Implementation.DFA), words


def _hint_positions(lower: str) -> dict[str, list[int]]:
    """Every start of every hint word in ``lower`` (overlapping ones too), ascending per word.

    One Aho-Corasick pass instead of a ``str.find`` over the whole description per hint word
    (nineteen of them), which was the excerpts' whole cost.
    """
    automaton, words = _hint_automaton()
    found: dict[str, list[int]] = {}
    for i, start, _ in automaton.find_matches_as_indexes(lower, overlapping=True):
        word = words[i]
        if start and word[0].isascii() and lower[start - 1].isascii() and lower[start - 1].isalpha():
            continue   # inside a word: "ms " in "systems ", "bs " in "jobs " would crowd the excerpt
        found.setdefault(word, []).append(start)
    for starts in found.values():
        starts.sort()
    return found


def _excerpt(text: str, positions: dict[str, list[int]], hints: tuple[str, ...], radius: int = 80, limit: int = 3) -> str:
    """The parts of a long text around the hint words, so requirement parsers read only those.

    ``positions`` is ``_hint_positions(text.lower())``. Per hint word in order, its first
    occurrence and then the next one at least ``radius`` characters after the previous one, until
    ``2 * limit`` starts are collected; the first ``limit`` starts in text order are kept.
    """
    starts: list[int] = []
    for word in hints:
        if len(starts) >= limit * 2:
            break   # the later words could add no start
        found = positions.get(word)
        if not found:
            continue
        pos = found[0]
        while True:
            starts.append(pos)
            if len(starts) >= limit * 2:
                break
            k = bisect_left(found, pos + len(word) + radius)
            if k == len(found):
                break
            pos = found[k]
    starts.sort()
    parts, last_end = [], -1
    for pos in starts[:limit]:
        a, b = max(0, pos - radius, last_end), pos + radius
        if b > a:
            parts.append(text[a:b])
            last_end = b
    return "\n".join(parts)


#: Per-description caches. Why: a batch repeats descriptions (boilerplate texts, one posting listed
#: for several cities: 849 of the 4,825 eval postings repeat an earlier description), and the
#: description parsers are most of a posting's cost. Small (1,024 texts), since the keys are long.
_DESCRIPTION_CACHE = 1024

#: ``clean_text`` of a description.
_clean_description = lru_cache(maxsize=_DESCRIPTION_CACHE)(clean_text)
#: ``str.lower`` of a cleaned description (salary, job type, requirements and skills all read it;
#: within one posting the lookup is an identity hit on the same string).
_lowercase = lru_cache(maxsize=_DESCRIPTION_CACHE)(str.lower)


_NUMERALS = frozenset("0123456789一两二三四五六七八九十半")
_EXPERIENCE_WORDS = ("经验", "經驗", "experience", "经历", "經歷")
#: A number of years is a requirement when experience is named just after it ("5+ years of
#: relevant experience", "3年以上开发经验", "EXP: 10+ Years"), not "for the last 5 years we ...".
_EXPERIENCE_NEAR = re.compile(r"experience|经验|經驗|经历|經歷|从业|工作|\bexp\b|\bwork(?:ing)?\b")
#: ... or a minimum is asked for just before it ("Minimum of 6+ years in a CRO setting").
_MINIMUM_BEFORE = re.compile(r"minimum|at least|至少|不少于|不低于")


def _counted(lower: str, positions: dict[str, list[int]], hints: tuple[str, ...]) -> dict[str, list[int]]:
    """The hint positions with a number in the 50 characters before them ("5+ years of backend
    experience", "3年以上"): the ones a requirement states. A description says "experience" and
    "years" first in other senses ("customer experience", "for 20 years we have ..."), and two such
    hits filled the excerpt before the requirement further down was reached."""
    out: dict[str, list[int]] = {}
    for word in hints:
        kept = [p for p in positions.get(word, ()) if not _NUMERALS.isdisjoint(lower[max(0, p - 50):p + 3])
                and (word in _EXPERIENCE_WORDS or _EXPERIENCE_NEAR.search(lower, p, p + 70)
                     or _MINIMUM_BEFORE.search(lower, max(0, p - 30), p))]
        if kept:
            out[word] = kept
    return out


@lru_cache(maxsize=_DESCRIPTION_CACHE)
def _description_requirements(description: str, experience: bool, degree: bool) -> tuple[float | None, float | None, str | None]:
    """(experience min, max, degree) stated around the description's hint words; each only when
    asked for (None otherwise), so a posting whose fields state one does not pay for it."""
    lower = _lowercase(description)
    hints = _hint_positions(lower)   # hint word positions, found once for both excerpts
    experience_min = experience_max = found_degree = None
    if experience:
        counted = _counted(lower, hints, _EXPERIENCE_HINT)
        experience_min, experience_max = parse_experience(
            _excerpt(description, counted, _EXPERIENCE_HINT, radius=90, limit=2)) if counted else (None, None)
        if experience_min is None:   # "经验不限", "no experience required": no number to find them by
            experience_min, experience_max = parse_experience(
                _excerpt(description, hints, _EXPERIENCE_HINT, radius=90, limit=2))
    if degree:
        found_degree = parse_degree(_excerpt(description, hints, _DEGREE_HINT))
    return experience_min, experience_max, found_degree


@lru_cache(maxsize=_DESCRIPTION_CACHE)
def _skills(title: str, description: str) -> tuple[str, ...]:
    """``job_skills`` of the title and description (a tuple: the cached value is shared)."""
    return tuple(job_skills(title, description))


def _cell(value: object) -> str | None:
    """A short text field, repaired (see ``repair_cell``); None when nothing is left."""
    if value is None:
        return None
    text = repair_cell(value if isinstance(value, str) else str(value))
    return text or None


def _repaired(fields: PostingFields) -> PostingFields:
    """The fields with every short text field unwrapped and mojibake-repaired, so each parser reads
    what a person reads (the description is repaired by ``clean_text``)."""
    types = fields.employment_type
    return dataclasses.replace(
        fields,
        title=_cell(fields.title), company=_cell(fields.company), location=_cell(fields.location),
        locations=[c for c in (_cell(x) for x in fields.locations or []) if c],
        remote_hint=_cell(fields.remote_hint), salary_text=_cell(fields.salary_text),
        employment_type=[c for c in (_cell(t) for t in types) if c] if isinstance(types, list) else _cell(types),
        seniority=_cell(fields.seniority), experience_text=_cell(fields.experience_text),
        degree_text=_cell(fields.degree_text), department=_cell(fields.department),
    )


def normalize_posting(
    fields: PostingFields,
    *,
    source: str,
    external_id: str,
    fetched_at: datetime,
    raw_id: int | None = None,
    fetch_id: int | None = None,
) -> NormalizedPosting:
    """One NormalizedPosting from the extractor's fields; never raises on odd values, only on bugs."""
    fetched_at = fetched_at if fetched_at.tzinfo else fetched_at.replace(tzinfo=timezone.utc)
    fields, notes, description_chars = cap_fields(fields)   # before any parser reads a stranger's text
    fields = _repaired(fields)
    title = clean_title(fields.title)
    description = _clean_description(str(fields.description)) if fields.description else ""
    description = cap_description(description, description_chars, notes)
    location_raw = _clean_location(str(fields.location)) if fields.location else None
    extra_locations = [str(x) for x in (fields.locations or []) if x]
    cities, country, remote = resolve_locations(location_raw, extra_locations, fields.remote_hint)
    origins: dict[str, str] = {}
    if remote is not None:
        origins["remote"] = "source_field"
    if cities:
        origins["cities"] = "source_field"
    cities, country, remote = _with_title_and_description(
        cities, country, remote, title, description, has_location=bool(location_raw or extra_locations),
        origins=origins)
    # detect_language reads the first 800 characters only: no copy of the whole description
    language = detect_language(f"{title}\n{description[:800]}") or detect_language(location_raw)
    context_currency = COUNTRY_CURRENCY.get(country or "") or ("CNY" if language == "zh" and country in (None, "CN") else None)
    salary = parse_salary(fields.salary_text, fields.salary, context_currency=context_currency)
    salary_origin = "source_field"
    if salary is not None and salary.period is not None and description and stated_period(fields.salary) is None:
        # a structured range without its period ("min_cents": 5000): when the description states
        # the same amounts with a period ("$50 - $65 an hour"), that period beats the size guess
        said = _description_salary(description, context_currency)
        if said is not None and said.period and (said.min, said.max) == (salary.min, salary.max):
            salary = with_period(salary, said.period)
    if salary is None and title and _TITLE_SALARY_CUE.search(title):
        # "[远程] Rust 工程师 薪资 30-50K": some boards put the pay only in the title
        found = parse_salary(_TITLE_SALARY_CUE.split(title, maxsplit=1)[-1], context_currency=context_currency)
        salary = found if found is not None and (found.min is not None or found.max is not None) else None
        salary_origin = "title"
    if (salary is None or (salary.min is None and salary.max is None)) and title and _TITLE_PAY.search(title):
        # "[远程] 测试工程师 3,000 - 6,500U", "TA岗位 USD 1500-4000": a range with its unit or currency
        found = parse_salary(title, context_currency=context_currency)
        if found is not None and (found.min is not None or found.max is not None):
            salary, salary_origin = found, "title"
    lower = _lowercase(description)
    if (salary is None or (salary.min is None and salary.max is None)) and description:
        found = _description_salary(description, context_currency, lower)
        if found is not None:
            salary, salary_origin = found, "description"
    salary = salary or Salary()
    if salary.min is not None or salary.max is not None:
        origins["salary"] = salary_origin
    if salary.period == "month" and salary.months_per_year is None and description and "薪" in description:
        salary.months_per_year = _description_months(description)
    annual_min, annual_max = annualize(salary)
    absurd = implausible_pay(salary, annual_min, annual_max)
    if absurd is not None:
        notes.append(absurd)
        salary, annual_min, annual_max = Salary(negotiable=salary.negotiable), None, None
        origins.pop("salary", None)
    elif salary.min is None and salary.max is None:
        too_large = oversized_amount(fields.salary_text, fields.salary)
        if too_large is not None:
            notes.append(f"salary left out: the source states {too_large:,.0f}, too large to be an amount of "
                         "money (a typo or a unit mix-up)")
    job_type, job_type_origin = job_type_and_origin(fields.employment_type, title, description, description_lower=lower)
    if job_type_origin:
        origins["job_type"] = job_type_origin
    seniority, seniority_origin = _seniority(fields, title, description)
    if seniority_origin:
        origins["seniority"] = seniority_origin
    exp_text = fields.experience_text
    degree = parse_degree(fields.degree_text)
    if degree is None and exp_text and parse_experience(exp_text) == (None, None):
        # a scraper's shifted columns put the degree in the experience cell (51job: 工作经验 "本科"
        # when the experience is missing)
        degree = parse_degree(exp_text)
        if degree is not None:
            exp_text = None
    degree_from_description = degree is None and bool(description)
    experience_min, experience_max = parse_experience(exp_text) if exp_text else (None, None)
    # A field that states no number ("experienced", "mid_level": an API's level, not years) leaves
    # the description to say it.
    experience_from_description = experience_min is None and experience_max is None
    if experience_from_description or degree_from_description:
        from_description = _description_requirements(description, experience_from_description, degree_from_description)
        if degree_from_description:
            degree = from_description[2]
        if experience_from_description:
            experience_min, experience_max = from_description[0], from_description[1]
    skills = list(_skills(title, description))
    posting = NormalizedPosting(
        source=source,
        external_id=str(external_id),
        title=title,
        company=clean_company(fields.company),
        location_raw=location_raw,
        cities=cities,
        country=country,
        remote=remote,
        job_type=job_type,
        seniority=seniority,
        salary=salary,
        salary_annual_min=annual_min,
        salary_annual_max=annual_max,
        experience_min=experience_min,
        experience_max=experience_max,
        degree=degree,
        skills=skills,
        language=language,
        description_text=description,
        url=(fields.url or "").strip() or None,
        posted_at=parse_date(fields.posted_at, fetched_at=fetched_at),
        valid_through=parse_deadline(fields.valid_through, fetched_at=fetched_at),
        field_origins={f: origins[f] for f in ORIGIN_FIELDS if f in origins},
        notes=notes,
        raw_id=raw_id,
        fetch_id=fetch_id,
    )
    posting.content_hash = content_hash(posting)
    return posting


# A pay statement inside the description, only where it is labelled as pay ("薪资范围：39-65K",
# "The pay range for this role is $165K–$210K"): unlabelled amounts there are budgets, revenue
# or headcounts far too often to be read as a salary.
_DESCRIPTION_SALARY = guarded(re.compile(
    r"(?:薪资福利待遇|薪资福利|薪酬福利|薪资范围|薪资待遇|薪资|薪酬范围|薪酬|月薪|年薪|工资|salary and benefits|salary & benefits|"
    r"salary range|base salary|salary|compensation and benefits|compensation range|"
    r"compensation|pay range(?: for this role)?(?: is)?)[ \t]*[:：]?[ \t]*([^\n。；;]{0,60})"
    # a section heading ("薪资福利待遇", "Salary and Benefits") with the pay on the next line
    r"(?:\n[ \t]*(?:\n[ \t]*)?(?:[-*•·][ \t]*)?([^\n。；;]{2,60}))?",
    re.I,
))


#: Every label above contains one of these (lowercased); most descriptions contain none, and
#: ``str.find`` rejects them far faster than scanning the case-insensitive alternation.
_SALARY_LABEL_CJK = ("薪", "工资")
_SALARY_LABEL_LATIN = ("salary", "compensation", "pay range")


def _may_state_salary(description: str, lower: str) -> bool:
    if any(k in description for k in _SALARY_LABEL_CJK) or any(k in lower for k in _SALARY_LABEL_LATIN):
        return True
    # re.I also folds "ſ" to "s" and "ı" to "i", which str.lower() leaves alone
    return "ſ" in description or "ı" in description


#: Where a label of ``_DESCRIPTION_SALARY`` can start, lowercased: every label starts with one.
_SALARY_LABEL_STARTS = ("薪", "月薪", "年薪", "工资", "salary", "base salary", "compensation", "pay range")


@lru_cache(maxsize=1)
def _salary_label_automaton() -> ahocorasick_rs.AhoCorasick:
    return ahocorasick_rs.AhoCorasick(list(_SALARY_LABEL_STARTS), implementation=ahocorasick_rs.Implementation.DFA)


def _salary_statements(text: str, lower: str) -> Iterator[re.Match[str]]:
    """``_DESCRIPTION_SALARY.finditer(text)``, tried only where a label starts (``lower`` is
    ``text.lower()``).

    Why: the case-insensitive label alternation is tried at every "s", "b", "c" and "p" of an
    English text; one automaton pass finds the few places it can match. Matching at those
    places in order, from the end of the last match on, finds the same matches. Where lowercasing
    moves positions (a text with "İ") or IGNORECASE folds letters ``str.lower`` keeps apart
    ("ſ", "ı"), or the automaton cannot read the text (a lone surrogate), the regex scans it all.
    """
    if len(lower) != len(text) or "ſ" in text or "ı" in text:
        yield from _DESCRIPTION_SALARY.finditer(text)
        return
    try:
        starts = sorted({start for _, start, _ in _salary_label_automaton().find_matches_as_indexes(lower, overlapping=True)})
    except UnicodeEncodeError:
        yield from _DESCRIPTION_SALARY.finditer(text)
        return
    end = 0
    for start in starts:
        if start >= end:
            match = _DESCRIPTION_SALARY.match(text, start)
            if match is not None:
                yield match
                end = match.end()


def _description_salary(description: str, context_currency: str | None, lower: str | None = None) -> Salary | None:
    if lower is None:
        lower = description.lower()
    if not _may_state_salary(description, lower):
        return None
    text = description[:20000]
    for match in _salary_statements(text, lower[:20000] if len(lower) == len(description) else text.lower()):
        for value in match.groups():
            if value and len(value.strip()) >= 2:
                found = parse_salary(value, context_currency=context_currency)
                if found is not None and (found.min is not None or found.max is not None):
                    return found
    return None


#: A pay range in a title without a pay word: the range carries a unit or a currency.
_TITLE_PAY = guarded(re.compile(
    r"\d[\d,.]*\s*[kKwW万千]?\s*(?:u|usdt|usd|rmb)?\s*[-~～至到—–]\s*(?:\$|usd|rmb|¥|￥)?\s*\d[\d,.]*\s*"
    r"(?:[kKwW万千](?![a-z])|u(?![a-z])|usdt|usd|rmb|cny|hkd|sgd|元)"
    r"|(?:\$|usd|rmb|¥|￥|hkd|sgd|s\$|hk\$|€|£)\s*[💲]?\s*\d[\d,.]*\s*[kK]?\s*[-~～至到—–]\s*\d",
    re.I,
))
#: Months of pay a year stated in the text only ("正式员工享受十三薪", "年底双薪" = a 13th month).
_DESCRIPTION_MONTHS = guarded(re.compile(
    r"(?<![\d.])(1[2-9]|2[0-4])\s*(?:[-~～至到]\s*(?:1[2-9]|2[0-4])\s*)?薪|十([二三四五六七八])\s*薪|年(?:底|终)双薪"))
_CN_DIGIT = {"二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}


def _description_months(description: str) -> int | None:
    m = _DESCRIPTION_MONTHS.search(description[:20000])
    if m is None:
        return None
    if m.group(1):
        return int(m.group(1))
    return 10 + _CN_DIGIT[m.group(2)] if m.group(2) else 13


_TITLE_SALARY_CUE = guarded(re.compile(r"薪水|薪资|薪酬|月薪|年薪|待遇|salary|compensation|\bpay\b", re.I))
_TITLE_REMOTE = guarded(re.compile(r"远程|遠程|\bremote\b|居家办公|\bwfh\b", re.I))
_TITLE_HYBRID = guarded(re.compile(r"\bhybrid\b|混合办公", re.I))


def _with_title_and_description(
    cities: list[str], country: str | None, remote: str | None, title: str, description: str, *, has_location: bool,
    origins: dict[str, str],
) -> tuple[list[str], str | None, str | None]:
    """Places and the work arrangement the title and the description state, merged with the fields'.

    The title's place groups ("[杭州/远程]", "(深圳/广州)", "- Copenhagen") add their cities; without a
    location field, the description's labelled location lines ("工作地点：杭州", "Work Location: remote /
    HK") stand in for it. The arrangement: the fields', else the title's, else the description's
    labelled lines ("是否远程：否") and sentences ("It is not a remote role", "Fridays are work-from-home
    days"); a description stating a hybrid arrangement corrects a remote read from a location list
    ("Germany/Remote" with "office minimum once a week").

    ``origins`` gets where the cities and the arrangement were read, when not from the fields: a
    remote arrangement the description names only among benefits ("远程办公补贴", "home-office
    stipend") is "inferred", which the remote filter does not accept.
    """
    title_cities, title_country, title_mode = title_places(title) if title else ((), None, None)
    if title_cities and "cities" not in origins:
        origins["cities"] = "title"
    cities = cities + [c for c in title_cities if c not in cities]
    country = country or title_country
    statements = labelled_lines(description) if description else None
    line_mode = None
    if statements is not None:
        for value in statements.get("location"):
            found_cities, found_country, found_mode = resolve_locations(value)
            if not has_location:
                if found_cities and "cities" not in origins:
                    origins["cities"] = "description"
                cities.extend(c for c in found_cities if c not in cities)
                country = country or found_country
            line_mode = line_mode or found_mode
        for value in statements.get("mode"):
            line_mode = mode_of_value(value) or line_mode
            if line_mode:
                break
        if line_mode is None:
            # "工作性质：全职/远程": a type line that names the arrangement too
            line_mode = next((m for m in (resolve_locations(v)[2] for v in statements.get("type")) if m), None)
    if remote is None and title:
        # "[远程] Rust 工程师", "Senior Engineer (Remote)": the title is often the only place it is said
        remote = title_mode or _title_remote(title)
        if remote is not None:
            origins["remote"] = "title"
    if remote is None or remote == "remote":
        lower = _lowercase(description) if description else ""
        if temporarily_remote(lower):
            origins["remote"] = "description"
            return cities, country, "onsite"     # "remote now, on site Mon-Fri once it is safe"
        if remote is None:
            if line_mode:
                remote = line_mode
                origins["remote"] = "description"
            else:
                remote = stated_mode(lower)
                if remote is not None:
                    origins["remote"] = ("inferred" if remote == "remote" and remote_only_among_benefits(lower)
                                         else "description")
        elif line_mode == "hybrid" or states_hybrid(lower):
            remote = "hybrid"
            origins["remote"] = "description"
    return cities, country, remote


#: An ATS's experience level code ("mid_level", "entry_level", "senior"), as opposed to a requirement.
_LEVEL_CODE = re.compile(r"[A-Za-z][A-Za-z_ -]{2,30}")
#: "... is seeking a Senior Data Engineer": the level of the role the title names.
_SEEKING_LEVEL = guarded(re.compile(
    r"\b(?:seeking|looking for|hiring|searching for)\s+(?:an?|our|the)\s+(senior|sr\.?|junior|jr\.?|lead|principal|staff)\s+"
    r"((?:[a-z/&-]+\s+){0,3}[a-z/&-]+)",
    re.I,
))


def _seniority(fields: PostingFields, title: str, description: str) -> tuple[str | None, str | None]:
    """(seniority, where it was read)."""
    found = parse_seniority(fields.seniority)
    if found is not None:
        return found, "source_field"
    found = parse_seniority(title)
    if found is not None:
        return found, "title"
    found = _stated_level(fields, title, description)
    if found is None:
        return None, None
    code = fields.experience_text
    return found, "source_field" if code and _LEVEL_CODE.fullmatch(code) and parse_seniority(code.replace("_", " ")) == found \
        else "description"


def _stated_level(fields: PostingFields, title: str, description: str) -> str | None:
    """The level stated outside the title and seniority field: an ATS experience level code
    (Recruitee's "mid_level"), or the description naming the title's role with a level ("seeking a
    Senior Data Engineer" for the title "Data Engineer")."""
    exp = fields.experience_text
    if exp and _LEVEL_CODE.fullmatch(exp):
        found = parse_seniority(exp.replace("_", " "))
        if found is not None:
            return found
    if not description or not title:
        return None
    last = title.split()[-1].lower() if title.split() else ""
    if not last.isascii() or len(last) < 4:
        return None
    for m in _SEEKING_LEVEL.finditer(description[:1500]):
        if last in m.group(2).lower().split():
            return parse_seniority(m.group(1))
    return None


def _title_remote(title: str) -> str | None:
    if _TITLE_HYBRID.search(title):
        return "hybrid"
    if _TITLE_REMOTE.search(title):
        return "remote"
    return None

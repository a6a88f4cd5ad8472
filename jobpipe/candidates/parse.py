"""Resume text -> CandidateProfile, with the same skill and city vocabulary as jobs.

Matching compares a candidate's skills and cities with the jobs' own canonical values, so
the profile is built with the normalizer's taxonomy (``extract_skills``, ``resolve_city``)
rather than a vocabulary of its own. The rest (experience, headline, language) is
best-effort heuristics over free text: a profile is a hint for ranking, never a filter
that could hide a job from a candidate.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict
from datetime import date

from jobpipe.candidates.models import CandidateProfile

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_CHAR = re.compile(r"[A-Za-z]")
_CN_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUM = r"(\d{1,2}(?:\.\d)?|[一两二三四五六七八九十]{1,2})"

# Explicit statements of total experience ("5+ years of experience", "3年以上工作经验").
_EXPERIENCE_PATTERNS = [
    re.compile(_NUM + r"\s*\+?\s*(?:years?|yrs?)\b(?:\s+(?:of|in))?(?:\s+[\w\-/&]+){0,4}?\s+experience", re.I),
    re.compile(r"experience\s*(?:of|:|-)?\s*" + _NUM + r"\s*\+?\s*(?:years?|yrs?)\b", re.I),
    re.compile(_NUM + r"\s*(?:\+|多)?\s*年(?:以上)?的?[\u4e00-\u9fff]{0,8}?经验"),
    re.compile(r"(?:工作经验|工作年限|从业年限|工龄)\s*[:：]?\s*" + _NUM + r"\s*年?"),
]
# Employment periods: "2016 - 2020", "2018.03-至今", "2019年7月 – 至今", "Jan 2016 - Present".
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_PERIOD = re.compile(
    r"((?:19|20)\d{2})(?:\s*[./年-]\s*\d{1,2}\s*月?)?\s*(?:-|–|—|~|～|to|至)\s*"
    r"(?:" + _MONTHS + r"\s*)?((?:19|20)\d{2}|至今|现在|今|present|current|now|date)",
    re.I,
)
# Study periods are not work experience.
_EDUCATION = re.compile(
    r"大学|学院|学校|本科|硕士|博士|研究生|学士|专科|在读|GPA|university|college|school|bachelor|master|"
    r"ph\.?d|b\.?sc|m\.?sc|education|degree",
    re.I,
)
_LOCATION_LINE = re.compile(
    r"(?:location|address|based in|city|现居|现居住地|居住地|所在地|所在城市|期望城市|期望地点|工作地点|意向城市)\s*[:：]?\s*(.+)",
    re.I,
)
_HEADLINE_LINE = re.compile(
    r"^\s*(?:求职意向|期望职位|应聘职位|目标职位|意向岗位|headline|title|objective|current title)\s*[:：]\s*(.+)$", re.I
)
_CONTACT = re.compile(r"@|https?://|\+?\d[\d\s\-()]{7,}\d")
_ROLE_WORD = re.compile(
    r"\b(?:engineer|developer|scientist|analyst|manager|designer|architect|consultant|specialist|lead|"
    r"director|administrator|intern|programmer|researcher|officer|accountant|teacher|nurse|technician)s?\b|"
    r"工程师|开发|经理|分析师|设计师|架构师|顾问|专员|总监|主管|实习|研究员|运营|产品|测试|算法|会计|教师",
    re.I,
)
_NOT_HEADLINES = {"resume", "curriculum vitae", "cv", "简历", "个人简历", "求职简历"}
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z.'\-]*")
MAX_HEADLINE_CHARS = 120
MAX_CITIES = 5


def _number(text: str) -> float | None:
    if text[0].isdigit():
        return float(text)
    if len(text) == 1:
        return float(_CN_DIGITS.get(text, 0)) or None
    if text[0] == "十":  # 十二 = 12
        return 10.0 + _CN_DIGITS.get(text[1], 0)
    if len(text) == 2 and text[1] == "十":  # 二十 = 20
        return 10.0 * _CN_DIGITS.get(text[0], 0) or None
    return None


def experience_years(text: str, *, today: date | None = None) -> float | None:
    """Years of experience: the largest explicit statement, else the span of dated periods."""
    stated = [
        n for pattern in _EXPERIENCE_PATTERNS for m in pattern.finditer(text)
        if (n := _number(m.group(1))) is not None and 0 < n <= 50
    ]
    if stated:
        return max(stated)
    this_year = (today or date.today()).year
    starts, ends = [], []
    work = "\n".join(line for line in text.splitlines() if not _EDUCATION.search(line))
    for m in _PERIOD.finditer(work):
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2).isdigit() else this_year
        if start <= end <= this_year:
            starts.append(start)
            ends.append(end)
    if not starts:
        return None
    span = max(ends) - min(starts)
    return float(span) if 0 < span <= 50 else None


def detect_language(text: str) -> str | None:
    cjk = len(_CJK_CHAR.findall(text))
    latin = len(_LATIN_CHAR.findall(text))
    if cjk == 0 and latin == 0:
        return None
    # A Chinese resume still spells tools in Latin letters (Python, MySQL), and a Chinese
    # character carries about as much as a short English word: weigh them accordingly.
    return "zh" if cjk * 4 >= latin else "en"


def _segments(line: str) -> list[str]:
    """A header line split at its separators: "Title | City | email" -> three segments."""
    return [seg.strip(" \t-*•#") for seg in re.split(r"\s[|｜·]\s|\s{3,}", line) if seg.strip(" \t-*•#")]


def headline(text: str, name: str | None = None) -> str | None:
    """The stated objective/title if labelled, else the first header segment naming a role."""
    lines = [line.strip(" \t-*•|#") for line in text.splitlines()]
    lines = [line for line in lines if line]
    for line in lines:
        m = _HEADLINE_LINE.match(line)
        if m:
            return _segments(m.group(1))[0][:MAX_HEADLINE_CHARS] if _segments(m.group(1)) else None
    candidates = []
    for line in lines[:8]:
        for seg in _segments(line):
            low = seg.lower().rstrip(":：")
            if low in _NOT_HEADLINES or (name and low == name.strip().lower()) or _CONTACT.search(seg):
                continue
            if len(seg) >= 2:
                candidates.append(seg)
    # The first line is usually the person's name: a segment that names a role beats it.
    titled = [seg for seg in candidates if _ROLE_WORD.search(seg) and len(seg) <= MAX_HEADLINE_CHARS]
    chosen = titled[0] if titled else (candidates[0] if candidates else None)
    return chosen[:MAX_HEADLINE_CHARS] if chosen else None


def _name_line(text: str, name: str | None) -> str | None:
    """The header line that is the person's name (skills found in it are false: "Maya", "Rust")."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if name and first.lower() == name.strip().lower():
        return first
    words = first.split()
    if (first and len(first) <= 40 and len(words) <= 4 and not _ROLE_WORD.search(first)
            and not re.search(r"[\d:：@|]", first)):
        return first
    return None


def _city_name(resolved: object) -> str | None:
    """``resolve_city`` may return a name or a record with a ``name``; take the canonical name."""
    if resolved is None:
        return None
    if isinstance(resolved, str):
        return resolved
    for attr in ("name", "canonical", "city"):
        value = getattr(resolved, attr, None)
        if isinstance(value, str):
            return value
    return None


# A capitalized Latin phrase is read as a place only where resumes put places: after "in",
# "at" or "near" ("based in Seattle"), or before a state/country ("Austin, TX"). Anywhere
# else too many ordinary words are also towns somewhere (Reading, Mobile, Acme, Bath).
_PLACE = r"([A-Z][A-Za-z'\-]+(?:[ \t]+[A-Z][A-Za-z'\-]+){0,2})"
_LATIN_PLACES = [
    re.compile(r"\b(?:in|at|near)[ \t]+" + _PLACE),
    re.compile(_PLACE + r",[ \t]*(?:[A-Z]{2}\b|China|USA|United States|UK|United Kingdom|Canada|India|Germany|"
               r"France|Japan|Singapore|Australia|Ireland|Netherlands)"),
]
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def _city_candidates(text: str, *, labelled: bool) -> list[tuple[int, str]]:
    """(position, phrase) pairs worth asking the city resolver about."""
    from jobpipe.text.tokenize import tokenize

    out: list[tuple[int, str]] = []
    for m in _CJK_RUN.finditer(text):
        out.extend((m.start(), w) for w in tokenize(m.group()) if len(w) >= 2)
    if labelled:
        out.extend((m.start(), m.group()) for m in _LATIN_WORD.finditer(text))
        for part in re.split(r"[,/|;，、]", text):
            if part.strip():
                out.append((text.find(part), part.strip()))
    for pattern in _LATIN_PLACES:
        for m in pattern.finditer(text):
            words = m.group(1).split()
            # Longest phrase first: "New York City" before "New York" before "New".
            out.extend((m.start(1), " ".join(words[:n])) for n in range(len(words), 0, -1))
    out.sort(key=lambda pair: pair[0])
    return out


def find_cities(text: str) -> list[str]:
    """Canonical cities named in the resume, labelled lines ("现居: 深圳", "Location: ...") first."""
    from jobpipe.normalize import resolve_city

    labelled = "\n".join(m.group(1) for m in _LOCATION_LINE.finditer(text))
    found: list[str] = []
    for chunk, is_label in ([(labelled, True)] if labelled else []) + [(text, False)]:
        for _, phrase in _city_candidates(chunk, labelled=is_label):
            try:
                city = _city_name(resolve_city(phrase))
            except Exception:  # a resolver rejecting odd input must not fail the profile
                city = None
            if city and city not in found:
                found.append(city)
        if found:
            break
    return found[:MAX_CITIES]


def _without_name(text: str, name: str | None) -> str:
    line = _name_line(text, name)
    return text.replace(line, " ", 1) if line else text


def profile_hash(profile: CandidateProfile) -> str:
    data = {k: v for k, v in asdict(profile).items() if k != "content_hash"}
    data["skills"] = sorted(data["skills"])
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_resume(candidate_id: str, text: str, name: str | None = None) -> CandidateProfile:
    """A profile of one resume: skills, cities, years of experience, language, headline."""
    from jobpipe.normalize import extract_skills

    text = text.replace("\r\n", "\n").strip()
    profile = CandidateProfile(
        candidate_id=candidate_id,
        resume_text=text,
        name=(name or None),
        headline=headline(text, name),
        skills=list(dict.fromkeys(extract_skills(_without_name(text, name)))),
        cities=find_cities(text),
        experience_years=experience_years(text),
        language=detect_language(text),
    )
    profile.content_hash = profile_hash(profile)
    return profile

"""Resume text -> CandidateProfile, with the same normalizers and vocabulary as postings.

Matching compares a candidate with jobs field by field, so each field is read with the
normalizer that produced the jobs' one: skills with the bilingual taxonomy
(``extract_skills``), cities with the gazetteer (``resolve_city``), seniority with
``parse_seniority``, job types with ``parse_job_type``, degrees with the degree patterns,
salary with ``parse_salary``/``annualize``. The text is redacted first
(:mod:`jobpipe.candidates.redact`): every field below is derived from the redacted text.

Experience is computed from the work history's date ranges (overlapping periods counted
once, education periods left out) rather than only taken from a stated "5 years"; both are
kept. A profile is a hint for ranking: only explicit preferences ever hide a job.
"""

from __future__ import annotations

import functools
import re
from datetime import date

from jobpipe.candidates.models import CandidateProfile, SkillEvidence, WorkPeriod
from jobpipe.candidates.redact import Redaction, redact
from jobpipe.candidates.sections import Section, lines_of, split_sections
from jobpipe.codeversion import code_digest
from jobpipe.normalize import annualize, extract_skills, parse_job_type, parse_salary, parse_seniority, resolve_city
from jobpipe.normalize.experience import degrees_mentioned
from jobpipe.normalize.location import city_country
from jobpipe.normalize.posting import COUNTRY_CURRENCY
from jobpipe.normalize.version import normalizer_version
from jobpipe.text.tokenize import tokenize

#: Bump to parse every stored resume again although no code changed (e.g. after upgrading pypdf).
PARSER_VERSION = 3
#: What turns a resume into a stored profile and its embedding text (globs below the package):
#: reading the file, redaction, sections, this parser, the profile record and the embedding text.
#: The normalizer it borrows (skills, cities, salaries) counts through ``normalizer_version``.
_PROFILE_CODE = ("candidates/documents.py", "candidates/redact.py", "candidates/sections.py", "candidates/parse.py",
                 "candidates/models.py", "candidates/vector_text.py")


@functools.cache
def parser_version() -> int:
    """The version stored profiles remember (``candidates.parser_version``): equal exactly when the
    code that reads, redacts and profiles a resume and builds its embedding text is the same, so a
    change of any of it reaches every stored candidate without a manual bump. 28 bits of a digest
    (the column is an integer); compared for equality, never ordered."""
    digest = code_digest(f"{PARSER_VERSION}|{normalizer_version()}", _PROFILE_CODE)
    return int(digest[:7], 16)

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_CHAR = re.compile(r"[A-Za-z]")
_CN_DIGITS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUM = r"(\d{1,2}(?:\.\d)?|[一两二三四五六七八九十]{1,2})"
MAX_HEADLINE_CHARS = 120
MAX_CITIES = 5
MAX_EVIDENCE_CHARS = 160

# Explicit statements of total experience ("5+ years of experience", "3年以上工作经验").
_EXPERIENCE_PATTERNS = [
    re.compile(_NUM + r"\s*\+?\s*(?:years?|yrs?)\b(?:\s+(?:of|in))?(?:\s+[\w\-/&]+){0,4}?\s+experience", re.I),
    re.compile(r"experience\s*(?:of|:|-)?\s*" + _NUM + r"\s*\+?\s*(?:years?|yrs?)\b", re.I),
    re.compile(_NUM + r"\s*(?:\+|多)?\s*年(?:以上)?的?[\u4e00-\u9fff]{0,8}?经验"),
    re.compile(r"(?:工作经验|工作年限|从业年限|工龄)\s*[:：]?\s*" + _NUM + r"\s*年?"),
]

# ---------------------------------------------------------------- work periods
_MONTH_NAMES = {m: i for i, names in enumerate(
    [("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",), ("jun", "june"),
     ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
     ("dec", "december")], start=1) for m in names}
_MON = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_YEAR = r"(?:19[5-9]\d|20[0-4]\d)"
#: "Mar'19": a month with a two-digit year after an apostrophe.
_SHORT_YEAR = r"['’‘]\s*\d{2}(?!\d)"
_POINT = (r"(?:" + _MON + r"\s*,?\s*" + _YEAR
          + r"|" + _MON + r"\s*" + _SHORT_YEAR
          + r"|" + _YEAR + r"(?:\s*[./\-年]\s*\d{1,2}(?!\d)\s*月?)?"
          + r"|\d{1,2}\s*[./]\s*" + _YEAR + r")")
_NOW = r"(?:present|current(?:ly)?|now|today|date|ongoing|至今|今|现在|目前|now)"
_PERIOD = re.compile(r"(?<![\d])(" + _POINT + r")\s*(?:-|–|—|~|～|to|until|till|至|到|－)\s*(" + _POINT + r"|" + _NOW + r")(?![\d])",
                     re.I)
# Study periods are not work experience.
_EDUCATION = re.compile(
    r"大学|学院|学校|本科|硕士|博士|研究生|学士|专科|大专|中专|高中|学历|学位|在读|GPA|MBA|university|college|school|bachelor|master|"
    r"ph\.?d|b\.?sc|m\.?sc|b\.?tech|m\.?tech|education|degree|diploma|graduat",
    re.I,
)
TODAY_UNUSED = date(2000, 1, 1)   # _point reads the text only
#: A year-only date is taken as the middle of that year.
_UNKNOWN_MONTH = 7

# ---------------------------------------------------------------- titles, locations, preferences
_ROLE_WORD = re.compile(
    r"\b(?:engineer|developer|scientist|analyst|manager|designer|architect|consultant|specialist|lead|"
    r"director|administrator|intern|programmer|researcher|officer|accountant|teacher|nurse|technician|"
    r"executive|associate|coordinator|tester|advocate|lawyer|trainer|operator|supervisor|head|vp|president|"
    r"cto|ceo|founder|dba|sre|devops)s?\b|"
    r"工程师|开发|经理|分析师|设计师|架构师|顾问|专员|总监|主管|实习|研究员|运营|产品|测试|算法|会计|教师|律师|助理|负责人|专家",
    re.I,
)
_OBJECTIVE_LINE = re.compile(
    r"^\s*(?:求职意向|期望职位|应聘职位|目标职位|意向岗位|期望岗位|应聘岗位|objective|target (?:role|position|title)s?|"
    r"desired (?:role|position)|looking for|seeking)\s*[:：]?\s*(.+)$", re.I)
_HEADLINE_LINE = re.compile(r"^\s*(?:headline|title|current title|current role|职位|当前职位|目前职位)\s*[:：]\s*(.+)$", re.I)
_NOT_HEADLINES = {"resume", "curriculum vitae", "cv", "简历", "个人简历", "求职简历"}
_LOCATION_LINE = re.compile(
    # whole words: "relocation to Bengaluru" is a wish, not where the person lives; "capacity" is no city
    r"(?:(?<![A-Za-z])(?:location|based in|city|current location)(?![A-Za-z])|现居|现居住地|居住地|所在地|所在城市|现居城市|目前所在地)"
    r"\s*[:：]?\s*(.+)",
    re.I,
)
_DESIRED_CITY_LINE = re.compile(
    r"(?:期望城市|期望地点|工作地点|意向城市|期望工作地点|意向地点|preferred locations?|desired locations?|"
    r"willing to relocate to|open to relocat(?:e|ion) to)\s*[:：]?\s*(.+)", re.I)
_SALARY_LINE = re.compile(
    r"(?:期望薪资|期望月薪|期望年薪|期望薪酬|薪资要求|期望待遇|薪资期望|目前薪资|expected salary|salary expectations?|"
    r"desired salary|expected (?:compensation|ctc)|expected(?=\s*[:：])|target (?:salary|compensation)|"
    r"salary requirements?)\s*[:：]?\s*([^\n|｜；;]+)",
    re.I,
)
_REMOTE_YES = re.compile(
    r"open to remote|remote[- ]?(?:only|first|friendly|preferred)|prefer(?:s|red)? remote|fully remote|work remotely|"
    r"remote work|available (?:for|to work) remote(?:ly)?|willing to work remote(?:ly)?|接受远程|希望远程|远程办公|远程工作|可远程",
    re.I,
)
_REMOTE_NO = re.compile(r"no remote|not open to remote|on-?site only|office only|不接受远程|不考虑远程", re.I)
#: "Remote" as one of the places a person wants or is at ("期望工作地点：北京/上海/远程", "Location: Remote (US)").
_REMOTE_PLACE = re.compile(r"(?<![A-Za-z])(?:remote|wfh|work from home)(?![A-Za-z])|远程|居家办公", re.I)
#: The kind of employment wanted, stated on its own line ("工作性质：全职", "Employment type: contract").
_JOB_TYPE_LINE = re.compile(
    r"^\s*(?:工作性质|工作类型|求职类型|期望工作性质|用工性质|employment type|job type|work type|engagement)\s*[:：]\s*(.+)$",
    re.I)
_LANGUAGES = {
    "en": r"english|英语|英文",
    "zh": r"mandarin|chinese|普通话|中文|汉语|国语",
    "yue": r"cantonese|粤语|广东话",
    "ja": r"japanese|日语|日文",
    "ko": r"korean|韩语|韩文",
    "de": r"german|deutsch|德语",
    "fr": r"french|français|法语",
    "es": r"spanish|español|西班牙语",
    "ru": r"russian|俄语",
    "he": r"hebrew|希伯来语",
    "ar": r"arabic|阿拉伯语",
    "pt": r"portuguese|葡萄牙语",
    "it": r"italian|意大利语",
    "hi": r"hindi|印地语",
}
def _language_pattern(pattern: str) -> re.Pattern[str]:
    """A language's names; a Latin name must not touch other letters ("english" in "englishman"),
    a Chinese one may touch anything ("英语CET-6", "日语N2")."""
    parts = [p if not p.isascii() else r"(?<![A-Za-z])" + p + r"(?![A-Za-z])" for p in pattern.split("|")]
    return re.compile("|".join(parts), re.I)


_LANGUAGE_RE = {code: _language_pattern(pattern) for code, pattern in _LANGUAGES.items()}
_LANGUAGE_LEVEL = re.compile(
    r"fluent|native|proficient|proficiency|bilingual|business level|working knowledge|intermediate|advanced|"
    r"conversational|mother tongue|(?<![A-Za-z])cet-?[46](?![A-Za-z\d])|ielts|toefl|toeic|(?<![A-Za-z])jlpt(?![A-Za-z])|"
    r"(?<![A-Za-z\d])n[1-5](?![A-Za-z\d])|\b[abc][12]\b|"   # "英语CET-6", "日语N2": no \b there
    r"流利|熟练|精通|母语|四级|六级|八级|专八|专四|读写|听说|口语", re.I)


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


def stated_experience(text: str) -> float | None:
    """The largest explicit statement of total experience ("5+ years of experience", "十年开发经验")."""
    stated = [
        n for pattern in _EXPERIENCE_PATTERNS for m in pattern.finditer(text)
        if (n := _number(m.group(1))) is not None and 0 < n <= 50
    ]
    return max(stated) if stated else None


def _point(text: str, *, today: date) -> tuple[int, int] | None:
    """(year, month) of one date point; None for "present" (the caller uses today)."""
    t = text.strip().lower()
    m = re.match(r"(" + _MON + r")\s*,?\s*(" + _YEAR + r")", t, re.I)
    if m:
        return int(m.group(2)), _MONTH_NAMES.get(m.group(1).rstrip(".")[:3], _UNKNOWN_MONTH)
    m = re.match(r"(" + _MON + r")\s*(" + _SHORT_YEAR + ")", t, re.I)
    if m:   # a two-digit year is this century's up to next year, else the last one's
        year = 2000 + int(m.group(2)[-2:])
        year = year if year <= today.year + 1 else year - 100
        return year, _MONTH_NAMES.get(m.group(1).rstrip(".")[:3], _UNKNOWN_MONTH)
    m = re.match(r"(" + _YEAR + r")(?:\s*[./\-年]\s*(\d{1,2})\s*月?)?", t)
    if m:
        month = int(m.group(2)) if m.group(2) else _UNKNOWN_MONTH
        return int(m.group(1)), month if 1 <= month <= 12 else _UNKNOWN_MONTH
    m = re.match(r"(\d{1,2})\s*[./]\s*(" + _YEAR + r")", t)
    if m:
        month = int(m.group(1))
        return int(m.group(2)), month if 1 <= month <= 12 else _UNKNOWN_MONTH
    return None


#: "Since 2017", "2017 onwards", "自2017年起": an open period without a dash. "Since" must start the
#: line or a bracket or field: "used Python since 2015" is no job.
_SINCE = re.compile(r"(?:^|(?<=[(\[（|,，:：;；]))\s*[-•*·]?\s*(?:since\s+|自\s*|从\s*)(" + _POINT + r")(?:\s*(?:年)?\s*(?:起|开始|以来))?|(" + _POINT +
                    r")\s*(?:onwards?|till date|to this day|年?起至今)", re.I)


def _periods_in(line: str) -> list[tuple[str, str]]:
    """(start, end) texts of the line's periods; an open one ("since 2017") ends "present"."""
    found = [(m.group(1), m.group(2)) for m in _PERIOD.finditer(line)]
    if not found:
        found = [(m.group(1) or m.group(2), "present") for m in _SINCE.finditer(line)]
    return found


def work_periods(lines: list[str], *, today: date | None = None) -> list[WorkPeriod]:
    """Dated periods in work-history lines (study lines skipped), in order of appearance."""
    today = today or date.today()
    now = (today.year, today.month)
    out = []
    for line in lines:
        if _EDUCATION.search(line):
            continue
        for first, last in _periods_in(line):
            start = _point(first, today=today)
            end = _point(last, today=today) if re.match(_YEAR + "|" + _MON + "|\\d", last, re.I) else None
            if start is None:
                continue
            until = end or now
            if until > now:
                until = now
            months = (until[0] - start[0]) * 12 + (until[1] - start[1])
            if months < 0 or months > 50 * 12:
                continue
            if months == 0:
                months = 1 if end is not None and re.search(r"[./\-年]\s*\d", first) else 6
            out.append(WorkPeriod(f"{start[0]:04d}-{start[1]:02d}", None if end is None else f"{end[0]:04d}-{end[1]:02d}",
                                  months, _evidence(line)))
    return out


def merged_years(periods: list[WorkPeriod]) -> float | None:
    """Total years of the periods with overlaps counted once (two jobs at a time are one career)."""
    if not periods:
        return None
    spans = []
    for p in periods:
        y, mo = map(int, p.start.split("-"))
        start = y * 12 + mo - 1
        spans.append((start, start + p.months))
    spans.sort()
    total, (cur_start, cur_end) = 0, spans[0]
    for start, end in spans[1:]:
        if start <= cur_end:
            cur_end = max(cur_end, end)
        else:
            total += cur_end - cur_start
            cur_start, cur_end = start, end
    total += cur_end - cur_start
    return round(total / 12, 1) if total > 0 else None


def experience_years(text: str, *, today: date | None = None) -> float | None:
    """Years of experience of a whole resume text: the work-history dates, else a stated figure,
    the larger when both are there (resumes often list only their recent jobs)."""
    profile = parse_resume("x", text, today=today)
    return profile.experience_years


def detect_language(text: str) -> str | None:
    cjk = len(_CJK_CHAR.findall(text))
    latin = len(_LATIN_CHAR.findall(text))
    if cjk == 0 and latin == 0:
        return None
    # A Chinese resume still spells tools in Latin letters (Python, MySQL), and a Chinese
    # character carries about as much as a short English word: weigh them accordingly.
    return "zh" if cjk * 4 >= latin else "en"


def _segments(line: str) -> list[str]:
    """A header line split at its separators: "Title | City | [email]" -> three segments, "Rahul
    Verma – Senior Data Engineer" -> two."""
    return [seg.strip(" \t-*•#") for seg in re.split(r"\s[|｜·•\-–—]\s|\s{3,}|[|｜]", line) if seg.strip(" \t-*•#")]


def _evidence(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_EVIDENCE_CHARS else line[: MAX_EVIDENCE_CHARS - 1] + "…"


def _placeholder_only(segment: str) -> bool:
    return not re.sub(r"\[(?:email|phone|link|handle|address|number|name|contact)\]|[\s,;:：|/]", "", segment)


def _role_segment(line: str) -> str | None:
    """The part of a line that names a role ("Staff ML Engineer, a startup (2022 - present)" -> "Staff ML Engineer")."""
    text = _PERIOD.sub(" ", line)
    for seg in re.split(r"\s[|｜·•@]\s|\s{2,}|[|｜,，;；()（）:：]|\s-\s|\sat\s", text):
        seg = seg.strip(" \t-–—*•#.")
        if seg and _ROLE_WORD.search(seg) and len(seg) <= 80 and not _placeholder_only(seg):
            return seg
    return None


def headline(text: str) -> str | None:
    """A stated title ("Title: ..."), else the first segment of the header (the lines before the
    first section heading) naming a role; the text is the redacted one."""
    header = split_sections(text)[0].lines
    lines = [line.strip(" \t-*•|#") for line in header]
    lines = [line for line in lines if line and not _PERIOD.search(line)]
    for line in lines[:12]:
        m = _HEADLINE_LINE.match(line)
        if m and _segments(m.group(1)):
            return _segments(m.group(1))[0][:MAX_HEADLINE_CHARS]
    candidates = []
    for line in lines[:8]:
        if _OBJECTIVE_LINE.match(line):
            continue   # what the person wants, not how they present themselves (target_titles)
        for seg in _segments(line):
            seg = re.split(r"\s+(?:based in|located in|living in)\s+|\s*[(（]", seg, maxsplit=1, flags=re.I)[0].strip()
            low = seg.lower().rstrip(":：")
            if low in _NOT_HEADLINES or _placeholder_only(seg) or "[" in seg and len(seg) < 12:
                continue
            if len(seg) >= 2:
                candidates.append(seg)
    titled = [seg for seg in candidates if _ROLE_WORD.search(seg) and len(seg) <= MAX_HEADLINE_CHARS]
    chosen = titled[0] if titled else None
    return chosen[:MAX_HEADLINE_CHARS] if chosen else None


def _city_name(resolved: object) -> str | None:
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
               r"France|Japan|Singapore|Australia|Ireland|Netherlands|Israel)"),
]
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z.'\-]*")


def _city_candidates(text: str, *, labelled: bool) -> list[tuple[int, str]]:
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
            out.extend((m.start(1), " ".join(words[:n])) for n in range(len(words), 0, -1))
    out.sort(key=lambda pair: pair[0])
    return out


def _resolve_all(chunk: str, *, labelled: bool) -> list[str]:
    found: list[str] = []
    for _, phrase in _city_candidates(chunk, labelled=labelled):
        try:
            city = _city_name(resolve_city(phrase))
        except Exception:  # noqa: BLE001 - a resolver rejecting odd input must not fail the profile
            city = None
        if city and city not in found:
            found.append(city)
    return found


def _place_statements(text: str) -> tuple[list[str], list[str]]:
    """What the resume says about places: the wanted ones ("期望城市：..."), where the person is
    ("Location: ...", "现居：...")."""
    return ([m.group(1) for m in _DESIRED_CITY_LINE.finditer(text)],
            [m.group(1) for m in _LOCATION_LINE.finditer(text)])


def find_cities(text: str, header: str = "") -> list[str]:
    """Canonical cities: the desired ones ("期望城市：上海、北京"), then where the candidate lives
    ("现居：深圳", "Location: ...", a header "San Francisco, CA"); places in work history are
    where they worked, not where they want to."""
    desired, current = ("\n".join(places) for places in _place_statements(text))
    found: list[str] = []
    for chunk, labelled in ((desired, True), (current, True), (header, False)):
        if not chunk:
            continue
        for city in _resolve_all(chunk, labelled=labelled):
            if city not in found:
                found.append(city)
        if found and chunk is not desired:
            break
    return found[:MAX_CITIES]


def _skill_evidence(sections: list[Section]) -> list[SkillEvidence]:
    """Each skill with whether it is listed (skills sections) or mentioned (work, projects, summary)."""
    listed_kinds = {"skills"}
    mentioned_kinds = {"experience", "projects", "summary", "objective", "header"}
    found: dict[str, SkillEvidence] = {}
    for section in sections:
        kind = "listed" if section.kind in listed_kinds else "mentioned" if section.kind in mentioned_kinds else None
        if kind is None:
            continue
        for line in section.lines:
            if not line:
                continue
            # a "Skills: ..." line inside another section is a listing too
            line_kind = "listed" if re.match(r"\s*(?:skills|technical skills|tools|tech stack|技能|技术栈)\s*[:：]", line,
                                             re.I) else kind
            for skill in extract_skills(line):
                ev = found.get(skill)
                if ev is None:
                    ev = found[skill] = SkillEvidence(skill, False, False, [])
                was = ev.listed if line_kind == "listed" else ev.mentioned
                if line_kind == "listed":
                    ev.listed = True
                else:
                    ev.mentioned = True
                if not was and len(ev.evidence) < 2:
                    ev.evidence.append(_evidence(line))
    # listed first (what the candidate claims), then by first appearance
    return sorted(found.values(), key=lambda e: not e.listed)


def _target_titles(sections: list[Section], text: str) -> list[str]:
    titles: list[str] = []
    candidates = [m.group(1) for line in text.splitlines() if (m := _OBJECTIVE_LINE.match(line.strip()))]
    candidates += lines_of(sections, "objective")[:2]
    for value in candidates:
        for part in re.split(r"[/、,，;；|｜]|\s+or\s+|\s{2,}", value):
            part = re.sub(r"(?:期望城市|期望地点|期望薪资|期望月薪).*$", "", part).strip(" -–:：")
            if part and _ROLE_WORD.search(part) and len(part) <= 60 and part not in titles:
                titles.append(part)
    return titles[:5]


def _current_title(sections: list[Section], periods_source: list[str]) -> str | None:
    """The role of the latest dated work period (the first one listed: resumes go newest first)."""
    lines = periods_source
    best: tuple[tuple[int, int], str] | None = None
    for i, line in enumerate(lines):
        m = _PERIOD.search(line)
        if not m or _EDUCATION.search(line):
            continue
        end = m.group(2)
        ongoing = not re.match(_YEAR + "|" + _MON + "|\\d", end, re.I)
        start = _point(m.group(1), today=TODAY_UNUSED) or (0, 0)
        key = (9999, 12) if ongoing else (_point(end, today=TODAY_UNUSED) or start)
        role = _role_segment(line) or (lines[i + 1] and _role_segment(lines[i + 1]) if i + 1 < len(lines) else None)
        if role and (best is None or key > best[0]):
            best = (key, role)
    return best[1][:MAX_HEADLINE_CHARS] if best else None


def _seniority_from_years(years: float | None) -> str | None:
    if years is None:
        return None
    if years < 2:
        return "junior"
    if years < 5:
        return "mid"
    if years < 10:
        return "senior"
    return "lead"


def _job_types(lines: list[str]) -> list[str]:
    types: list[str] = []
    for line in lines:
        for part in re.split(r"[/、,，;；|｜]|\s{2,}", line):
            kind = parse_job_type(None, part)
            if kind and kind not in types:
                types.append(kind)
    return types


def _expected_salary(text: str, language: str | None, cities: list[str]) -> dict | None:
    m = _SALARY_LINE.search(text)
    if not m:
        return None
    country = city_country(cities[0]) if cities else None
    context = COUNTRY_CURRENCY.get(country or "") or ("CNY" if language == "zh" else None)
    salary = parse_salary(m.group(1), context_currency=context)
    if salary is None or (salary.min is None and salary.max is None):
        return None
    low, high = annualize(salary)
    return {**salary.as_dict(), "annual_min": low, "annual_max": high}


def _languages(sections: list[Section], language: str | None) -> list[str]:
    found: list[str] = []
    section_text = "\n".join(lines_of(sections, "languages"))
    other = [line for s in sections if s.kind != "languages" for line in s.lines if _LANGUAGE_LEVEL.search(line)]
    for chunk in [section_text, *other]:
        for code, pattern in _LANGUAGE_RE.items():
            if code not in found and pattern.search(chunk):
                found.append(code)
    if language and language not in found:
        found.insert(0, language)
    return found


def _highest_degree(sections: list[Section], text: str) -> str | None:
    education = "\n".join(lines_of(sections, "education"))
    degrees = degrees_mentioned(education) if education else []
    if not degrees:
        degrees = degrees_mentioned("\n".join(line for line in text.splitlines() if _EDUCATION.search(line)))
    return degrees[0] if degrees else None


def parse_redacted(candidate_id: str, text: str, *, today: date | None = None, truncated: bool = False,
                   redacted: dict[str, int] | None = None) -> CandidateProfile:
    """A profile of an already redacted resume text.

    ``today`` is the date "present"/"至今" means: the day the document was last saved when its
    metadata says so (an old resume's "2019 - present" is not seven years today), else today.
    """
    text = text.replace("\r\n", "\n").strip()
    sections = split_sections(text)
    header_lines = sections[0].lines
    work = lines_of(sections, "experience", "projects") or [line for line in text.splitlines() if line.strip()]
    periods = work_periods(lines_of(sections, "experience") or work, today=today)
    from_dates = merged_years(periods)
    stated = stated_experience(text)
    years = max(y for y in (from_dates, stated) if y is not None) if (from_dates or stated) else None
    language = detect_language(text)
    head = headline(text)
    current = _current_title(sections, lines_of(sections, "experience") or work)
    targets = _target_titles(sections, text)
    seniority, source = None, None
    for title in (current, head, *targets):
        if title and (level := parse_seniority(title)):
            seniority, source = level, "title"
            break
    if seniority is None and (level := _seniority_from_years(years)):
        seniority, source = level, "experience"
    cities = find_cities(text, "\n".join(header_lines[:6]))
    statements = header_lines[:8] + lines_of(sections, "objective", "summary")
    statement_text = "\n".join(statements)
    remote = False if _REMOTE_NO.search(statement_text) else True if _REMOTE_YES.search(statement_text) else None
    if remote is None:
        wanted, lives = _place_statements(text)
        remote = True if any(_REMOTE_PLACE.search(place) for place in wanted + lives) else None
    objective_lines = [m.group(1) for line in text.splitlines() if (m := _OBJECTIVE_LINE.match(line.strip()))]
    objective_lines += lines_of(sections, "objective")
    evidence = _skill_evidence(sections)
    return CandidateProfile(
        candidate_id=candidate_id,
        resume_text=text,
        language=language,
        headline=head or (targets[0] if targets else None) or current,
        current_title=current,
        target_titles=targets,
        seniority=seniority,
        seniority_source=source,
        experience_years=years,
        experience_from_dates=from_dates,
        experience_stated=stated,
        work_periods=periods,
        degree=_highest_degree(sections, text),
        skills=[e.skill for e in evidence],
        skill_evidence=evidence,
        cities=cities,
        remote=remote,
        job_types=_job_types(objective_lines + targets + [
            m.group(1) for line in text.splitlines() if (m := _JOB_TYPE_LINE.match(line))]),
        expected_salary=_expected_salary(text, language, cities),
        languages=_languages(sections, language),
        truncated=truncated,
        redacted=dict(redacted or {}),
        as_of=(today or date.today()).isoformat(),
    )


def parse_resume(candidate_id: str, text: str, names: tuple[str, ...] | list[str] = (), *,
                 today: date | None = None, truncated: bool = False) -> CandidateProfile:
    """Redact ``text`` (contact details, the names given and the one in its header), then profile it."""
    redaction: Redaction = redact(text, names)
    return parse_redacted(candidate_id, redaction.text, today=today, truncated=truncated, redacted=redaction.counts)

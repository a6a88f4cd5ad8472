"""Years of experience and the degree a posting asks for.

Chinese boards give both as short fields ("3-5年", "经验不限", "本科"); English postings bury them
in prose ("5+ years of experience", "BS/MS in Computer Science"), so the prose is searched only
near the words that introduce them.
"""

from __future__ import annotations

import re
import unicodedata

from jobpipe.normalize.regex_guard import guarded
from jobpipe.normalize.text import _CJK

_NUM = r"(\d+(?:\.\d+)?|一|两|二|三|四|五|六|七|八|九|十)"
_CN_NUM = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
#: "半年以上开发经验": half a year, only with experience named ("试用期半年" is probation).
_HALF_YEAR_RE = re.compile(r"半年(?:以上|及以上|或以上)?[^。\n；;]{0,12}?(?:经验|經驗)")

# "No experience required" in its many spellings ("['无工作经验']" is a 51job field value); "无相关
# 经验者勿扰" says the opposite, and "零经验" is zero.
_NONE_RE = guarded(re.compile(
    r"经验不限|經驗不限|不限经验|(?:无|無|不需要|不要求|无需|無需|无须)(?:相关|相關)?(?:工作)?(?:经验|經驗)"
    r"(?!者?(?:勿|免|不|请勿|謝絕|谢绝))|零(?:经验|經驗)|^\s*不限\s*$|"
    r"no (?:prior |previous |professional |relevant )?(?:work )?experience (?:is )?(?:required|necessary|needed)",
    re.I))
_GRAD_RE = guarded(re.compile(r"应届|應屆|在校|毕业生|new grad|fresh graduate", re.I))
#: ``_NUM`` spelled to start with one character class of uncased characters, so that re, even
#: under IGNORECASE, jumps to the next digit or numeral instead of trying every position (a
#: guard lookahead in front would stop that). A numeral stops after its one character; a digit
#: goes on with ``\d*(?:\.\d+)?``, backtracking through the same lengths in the same order.
_NUM_FIRST = r"([\d一两二三四五六七八九十](?:(?<=\d)\d*(?:\.\d+)?)?)"
_RANGE_TAIL = r"\s*(?:-|~|～|—|–|至|到|to)\s*" + _NUM + r"\s*(?:\+\s*)?(?:年|years?|yrs?)"
_MIN_TAIL = r"\s*(?:\+|年以上|年及以上|年或以上|年\s*以上|\s*years?\s*\+|\+\s*years?|years? or more|or more years|years?|yrs?|年)"
_RANGE_RE = re.compile(_NUM_FIRST + _RANGE_TAIL, re.I)
_MIN_RE = re.compile(_NUM_FIRST + _MIN_TAIL, re.I)
_BELOW_RE = guarded(re.compile(_NUM + r"\s*年以下|less than\s*" + _NUM + r"\s*years?", re.I))
_ANY_NUMBER = re.compile(r"[\d一两二三四五六七八九十半]")
_CONTEXT_RE = guarded(re.compile(r"经验|經驗|经历|經歷|experience|\bexp\b|工作|work|从业|開發|开发|minimum|at least|至少|不少于",
                                 re.I))

#: Substrings every match of ``_NONE_RE`` / ``_GRAD_RE`` contains (Latin ones lowercased): a text
#: holding none cannot match, and ``in`` rejects it far faster than the case-insensitive scan.
_NONE_CUES = ("不限", "无", "無", "不需要", "不要求", "零经验", "零經驗", "no ")
_GRAD_CUES = ("应届", "應屆", "在校", "毕业生", "new grad", "fresh graduate")


def _has_cue(t: str, low: str, cues: tuple[str, ...]) -> bool:
    for cue in cues:
        if cue in low:
            return True
    return not low.isascii() and ("ſ" in t or "ı" in t or "İ" in t)


#: Fullwidth ASCII and the ideographic space, as NFKC maps them. Chinese requirement text is full
#: of "，：（）～" and they alone make NFKC do its slow full pass; swapping them for their (single,
#: non-combining) decompositions first leaves the NFKC form unchanged.
_FULLWIDTH_TO_ASCII = {c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)} | {0x3000: " "}


#: The fullwidth punctuation Chinese text is full of (most common first in the eval postings).
#: ``str.replace`` swaps each in one C-level pass; ``str.translate`` with a dict costs a Python-level
#: lookup per character of the text.
_COMMON_FULLWIDTH = tuple((wide, chr(ord(wide) - 0xFEE0)) for wide in "，；：（）！．／～｜？")


def _nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, without the full pass when only fullwidth ASCII differs.

    Replacing a character by its compatibility decomposition leaves the NFKC form unchanged, so
    the text is NFKC exactly when it passes ``is_normalized`` after any of these replacements.
    """
    if unicodedata.is_normalized("NFKC", text):
        return text
    for wide, narrow in _COMMON_FULLWIDTH:
        if wide in text:
            text = text.replace(wide, narrow)
    if unicodedata.is_normalized("NFKC", text):
        return text
    text = text.translate(_FULLWIDTH_TO_ASCII)
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


def _n(text: str) -> float:
    return float(_CN_NUM.get(text, text))


def _after(t: str, end: int) -> int:
    """How far after a number its context may be: English puts more words between them ("1-2 years of
    academic or professional analytical or modeling experience") than Chinese ("3年以上开发经验")."""
    return 30 if _CJK.search(t, end, end + 80) else 80


#: "1.本科以上学历 2.3年以上销售经验": a list's item number glued to the years reads as "2.3年".
_LIST_GLUED = re.compile(r"(?:^|(?<=[\s，,；;。:：、)）]))([1-9])\.(\d)(?=\s*(?:-\s*\d+\s*)?(?:年|\+\s*年))")
#: New graduates welcome ("可接受应届毕业生", "欢迎应届生"): experience from none up.
_GRADS_WELCOME = re.compile(r"(?:可接受|接受|欢迎|可招|接收|亦可|也可)[^。；;\n]{0,6}?(?:应届|應屆)|(?:应届|應屆)[^。；;\n]{0,8}?(?:亦可|也可|均可)")


def _unglue_list_numbers(t: str) -> str:
    """"2.3年以上" after an item "1." is item 2 asking 3 years. Only where the text numbers its items
    (the previous item's number; for item 1 the next one's, or a line starting "1.3年"): "1.5年经验"
    alone stays a year and a half."""
    def fix(m: re.Match[str]) -> str:
        item = int(m.group(1))
        before, after = t[:m.start()], t[m.end():]
        if item > 1:
            numbered = f"{item - 1}." in before or f"{item - 1}、" in before
        else:   # the next item's number, or a line that starts "1.3年" (the cleaner made the rest bullets)
            numbered = f"{item + 1}." in after or f"{item + 1}、" in after or \
                (m.group(2) != "5" and (not before or before.endswith("\n")))
        return f"{m.group(1)}. {m.group(2)}" if numbered else m.group(0)
    return _LIST_GLUED.sub(fix, t) if "." in t else t


def parse_experience(text: str | None) -> tuple[float | None, float | None]:
    """(min_years, max_years); (0, 0) for fresh graduates, (0, None) for "no requirement"."""
    if not text:
        return None, None
    t = str(text)
    if not t.isascii():
        t = _nfkc(t)
        t = _unglue_list_numbers(t)
    low = t.lower()
    if _has_cue(t, low, _NONE_CUES) and _NONE_RE.search(t):
        return 0.0, None
    grad = _has_cue(t, low, _GRAD_CUES) and _GRAD_RE.search(t) is not None
    if not _ANY_NUMBER.search(t):
        return ((0.0, None) if _GRADS_WELCOME.search(t) else (0.0, 0.0)) if grad else (None, None)
    short = len(t) <= 20
    for m in _RANGE_RE.finditer(t):
        if short or _CONTEXT_RE.search(t[max(0, m.start() - 30):m.end() + _after(t, m.end())]):
            lo, hi = _n(m.group(1)), _n(m.group(2))
            if 0 <= lo <= hi <= 40:
                return lo, hi
    if short:   # "3年以下" counts only as a whole field: in prose it is a range of something else
        below = _BELOW_RE.search(t)
        if below:
            return 0.0, _n(below.group(1) or below.group(2))
    if "半" in t and _HALF_YEAR_RE.search(t):
        return 0.5, None
    for m in _MIN_RE.finditer(t):
        if short or _CONTEXT_RE.search(t[max(0, m.start() - 30):m.end() + _after(t, m.end())]):
            lo = _n(m.group(1))
            if 0 <= lo <= 40:
                return lo, None
    if grad:
        # "应届毕业生" is a position for new graduates; "可接受应届毕业生" welcomes them among others
        return (0.0, None) if _GRADS_WELCOME.search(t) else (0.0, 0.0)
    return None, None


DEGREES = ("high_school", "associate", "bachelor", "master", "phd")
_DEGREE_RES: list[tuple[str, re.Pattern[str]]] = [
    # A supervisor of doctoral or master's students (博士生导师, 硕导) holds no degree by the title;
    # a Latin abbreviation may touch Chinese text ("获PhD学位", "大学EMBA"), where \b sees no edge.
    ("phd", guarded(re.compile(r"博士(?!(?:生|后)?导师)|(?<![A-Za-z])ph\.?\s?d(?![A-Za-z])|\bdoctorate\b|\bdoctoral\b",
                               re.I))),
    # Two-letter abbreviations only in capitals: "be", "ms" and "ba" are also words and units
    # ("will be", "10 ms"); "MS SQL Server" and "MS Office" are Microsoft's.
    ("master", guarded(re.compile(
        r"硕士(?!(?:生|研究生)?导师)|碩士|研究生(?!导师)|\bmaster'?s?\b|"
        r"(?-i:\bM\.?S\b\.?)(?!\s*(?:office|excel|word|sql|access|project|teams|visio|dynamics|outlook|"
        r"powerpoint|windows|exchange|dos|azure)\b)|\bM\.?\s?Sc\b|(?<![A-Za-z])E?MBA(?![A-Za-z])|\bM\.?Eng\b|"
        r"\bM\.?\s?Tech\b|\bMCA\b|\bM\.\s?Com\b|\bM\.\s?E\.(?![A-Za-z])|\bLL\.?M\b|\bM\.?\s?Phil\b|\bM\.?\s?Pharm\b|"
        r"\b(?:advanced|graduate|post-?graduate) degrees?\b",
        re.I))),
    ("bachelor", guarded(re.compile(
        r"(?<!成)本科|大学(?:学历|文化)|学士|學士|统招本科|\bbachelor'?s?\b|(?-i:\bB\.?S\b\.?|\bB\.?A\b\.?(?!\w)|\bBE\b)|"
        r"\bB\.?\s?Sc\b|\bB\.?Eng\b|\bB\.\s?E\.?(?![A-Za-z])|\bB\.?\s?Tech\b|\bB\.\s?Com\b|\bBCA\b|\bBBA\b|"
        r"\bLL\.?B\b|\bB\.?\s?Pharm\b|\bB\.\s?Arch\b|"
        r"undergraduate|college degree|(?:4|four)[- ]year (?:college |university )?degree|university degree", re.I))),
    ("associate", guarded(re.compile(r"大专|大專|专科|專科|高职|\bassociate'?s? degree\b", re.I))),
    ("high_school", guarded(re.compile(r"高中|中专|中專|技校|中技|职高|職高|\bvocational\b|\bhigh school\b|\bhigher secondary\b|\bGED\b|(?-i:\bHSC\b)", re.I))),
]
_DEGREE_RES_LOWEST_FIRST = _DEGREE_RES[::-1]
_DEGREE_KEYWORDS = {
    "phd": ("博士", "ph", "doctor"),
    "master": ("硕士", "碩士", "研究生", "master", "advanced degree", "graduate degree", "ms", "m.s", "mba", "m.eng", "meng", "m. s", "m sc", "m. sc",
               "m.e", "m. e", "m.com", "m. com", "tech", "mca", "llm", "ll.m", "phil", "pharm"),
    "bachelor": ("本科", "大学", "学士", "學士", "bachelor", "bs", "b.s", "ba", "b.a", "b.eng", "be", "undergraduate", "degree", "four",
                 "b sc", "b. sc", "b.e", "b. e", "b.com", "b. com", "b.arch", "b. arch", "tech", "bca", "bba", "llb",
                 "ll.b", "pharm"),
    "associate": ("大专", "大專", "专科", "專科", "高职", "associate"),
    "high_school": ("高中", "中专", "中專", "技校", "中技", "职高", "職高", "vocational", "high school", "higher secondary", "ged", "hsc"),
}
_DEGREE_CONTEXT = guarded(re.compile(r"学历|學歷|学位|专业|專業|院校|统招|\d\+?\s*years?|degree|qualification|requirement|education|\bin\s+[A-Za-z]|毕业|畢業|以上|及以上|或以上|in computer|in a related|required|preferred|equivalent", re.I))

_NO_REQUIREMENT = re.compile(r"\s*(学历)?不限\s*")


def parse_degree(text: str | None) -> str | None:
    """The lowest degree a text requires ("本科及以上" -> bachelor; "BS/MS" -> bachelor), else None.

    A short field ("硕士") is taken as is; in prose only mentions near degree wording count.
    """
    if not text:
        return None
    t = str(text)
    if not t.isascii():
        t = _nfkc(t)
    if _NO_REQUIREMENT.fullmatch(t):
        return None
    short = len(t) <= 20
    if short:
        t = t.replace("_", " ")   # an API's enumeration value: "bachelor_degree", "high_school"
    low = t.lower()
    # the lowest level mentioned is the requirement ("Bachelor's required, Master's preferred"):
    # levels are tried from the lowest up, and the first one mentioned is the answer (the higher
    # ones, often named too, are never searched)
    for name, pattern in _DEGREE_RES_LOWEST_FIRST:
        # cheap substring pre-check: most texts name one degree, so most regexes never run
        for keyword in _DEGREE_KEYWORDS[name]:   # a plain loop: any(generator) costs twice as much
            if keyword in low:
                break
        else:
            continue
        for m in pattern.finditer(t):
            if short or _DEGREE_CONTEXT.search(t[max(0, m.start() - 40):m.end() + 40]):
                return name
    return None


def degrees_mentioned(text: str | None) -> list[str]:
    """Every degree level ``text`` names, highest first, without asking for requirement wording.

    For texts that state degrees held (a resume's education lines: "MS Computer Science, 2019",
    "2020.09 - 2024.06 某大学 本科"), where :func:`parse_degree`'s context rule would miss them;
    the patterns are the same, so both sides of a match speak one vocabulary (``DEGREES``).
    """
    if not text:
        return []
    t = str(text)
    if not t.isascii():
        t = _nfkc(t)
    return [name for name, pattern in _DEGREE_RES if pattern.search(t)]

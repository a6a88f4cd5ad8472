"""Descriptions to clean text: HTML and markdown out, paragraphs and list items kept, mojibake repaired.

Agents read ``description_text`` and the embedder encodes it, so markup, escaped entities
(Greenhouse escapes its HTML twice: ``&lt;p&gt;``), zero-width characters and mojibake (GBK or
UTF-8 bytes read as Latin-1, as in old 拉勾 exports) would all cost retrieval quality. Line
breaks between paragraphs and list items are kept: they carry the structure ("要求:" lists).
"""

from __future__ import annotations

import ast
import html
import re
import unicodedata
from functools import lru_cache

import lxml.html
from lxml import etree

_BLOCK_TAGS = frozenset(
    "p div br li ul ol h1 h2 h3 h4 h5 h6 tr table section article header footer blockquote pre dd dt dl hr".split()
)
_DROP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "iframe"})
_HTML_HINT = re.compile(r"<\s*/?\s*(p|div|br|li|ul|ol|h[1-6]|span|strong|b|i|em|a|table|tr|td|section|font)\b[^>]*>", re.I)
_ESCAPED_HTML_HINT = re.compile(r"&lt;\s*/?\s*(p|div|br|li|ul|ol|h[1-6]|span|strong|b|em|a)\b", re.I)
#: Zero-width and bidi controls, BOM, soft hyphen; C0/C1 controls except \n and \t (what every
#: text jobpipe reads, postings and resumes alike, is cleaned of).
INVISIBLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\u00ad]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_MOJIBAKE_HINT = re.compile(r"[\u00c0-\u00ff][\u0080-\u00ff]|[ÃÂÅÆÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ]{2}")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_RUN = re.compile(r"[A-Za-z]+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_KANA_RUN = re.compile(r"[\u3040-\u30ff]+")
_HANGUL_RUN = re.compile(r"[\uac00-\ud7af]+")
_LATIN1_HIGH = re.compile(r"[\u0080-\u00ff]")

# Markdown
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]+)\]\((?:[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.M)
_MD_EMPH = re.compile(r"(\*\*|__|~~)(.+?)\1")
#: ``(?<![\w*])\*(?!\s)...``, spelled to start with the literal "*" (its lookbehind moved after it:
#: "the star is not preceded by a word char or star") so re jumps between stars instead of trying
#: the lookbehind at every position: 10x faster on long texts, same matches.
_MD_EM = re.compile(r"\*(?<![\w*]\*)(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])")
_MD_BULLET = re.compile(r"^\s*(?:[-*+•·]|\d+[.)、])\s+", re.M)
_MD_CHECKBOX = re.compile(r"^- \[[ xX]\]\s*", re.M)
_MD_FENCE = re.compile(r"^\s*```.*$", re.M)
_MD_QUOTE = re.compile(r"^\s*>\s?", re.M)
_MD_RULE = re.compile(r"^\s*([-*_=]\s*){3,}$", re.M)
_MD_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", re.M)
_MD_INLINE_CODE = re.compile(r"`([^`\n]+)`")


def repair_mojibake(text: str) -> str:
    """Undo GBK/UTF-8 bytes decoded as Latin-1 or cp1252, when the repair is clearly better.

    Only runs on text with Latin-1 letter pairs and no CJK at all; a candidate is kept only if it
    decodes cleanly and turns the suspicious characters into CJK (or plain) text.
    """
    if not text or text.isascii():
        return text
    # U+0080-U+00FF count, by two C-level encodes: cheaper than the CJK scan over a long text,
    # and most non-ASCII texts (curly quotes, CJK) have fewer than two such characters
    high = len(text.encode("latin-1", "ignore")) - len(text.encode("ascii", "ignore"))
    if high < 2 or _CJK.search(text):
        return text
    dense = high >= 0.3 * len(text.replace(" ", ""))   # GBK read as Latin-1: nearly every char is high
    if not dense and not _MOJIBAKE_HINT.search(text):
        return text
    best = text
    ascii_chars = len(text.encode("ascii", "ignore"))
    for source in ("latin-1", "cp1252"):
        try:
            raw = text.encode(source)
        except UnicodeEncodeError:
            continue
        for target in ("utf-8", "gb18030"):
            try:
                fixed = raw.decode(target)
            except UnicodeDecodeError:
                continue
            if fixed == text or "\ufffd" in fixed:
                continue
            if target == "utf-8" and len(fixed) < len(text) and _PLAIN_NON_ASCII.fullmatch(fixed):
                return fixed   # UTF-8 of accented Latin read as Latin-1 ("CafÃ©" is "Café")
            if len(_LATIN1_HIGH.findall(fixed)) >= max(1, high // 4):
                continue
            if target == "gb18030" and (len(_CJK.findall(fixed)) < 0.6 * (high / 2)
                                        or len(fixed.encode("ascii", "ignore")) != ascii_chars):
                # a few accents read as GBK make stray CJK, not a Chinese text; and GBK mojibake
                # keeps every ASCII character (a Chinese character's two bytes are both high),
                # while "Ærøskøbing" read as GBK swallows letters into characters
                continue
            if _CJK.search(fixed):
                # UTF-8 or GBK of Chinese; "Ë¶Ê¿" is valid UTF-8 too, but for two modifier
                # letters, not plain text: its GBK reading (硕士) is the repair
                return fixed
    return best


#: What a repaired non-Chinese text may hold: ASCII, Latin letters with accents, general punctuation.
_PLAIN_NON_ASCII = re.compile(r"[\x00-\x7f\u00a0-\u024f\u2000-\u206f\u20ac]*")


#: A cell holding a Python list literal of strings, as some scrapers write CSV cells ("['数据工程师']",
#: "['1-1.5万/月']", "[]"): the literal is read with ``ast.literal_eval``, never executed.
_LIST_CELL = re.compile(r"""^\[\s*(?:(?:'[^'\\]*'|"[^"\\]*")\s*(?:,\s*(?:'[^'\\]*'|"[^"\\]*")\s*)*,?\s*)?\]$""")


@lru_cache(maxsize=16384)
def repair_cell(value: str) -> str:
    """A short field as a reader sees it: a Python-list cell unwrapped to its items (several joined
    with " / ", as listed alternatives), and mojibake repaired (拉勾's "ÉÏº£" is 上海).

    Why here and not in the file source: the same damage arrives through every kind (a scraped
    JSON API, a CSV drop, a replayed payload), and the parsers of salary, city, type, experience and
    degree can only read the repaired text. Cached: a source repeats the same cells.
    """
    text = value.strip()
    if text.startswith("[") and text.endswith("]") and _LIST_CELL.match(text):
        try:
            items = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            items = None
        if isinstance(items, list):
            text = " / ".join(str(item).strip() for item in items if str(item).strip())
    return repair_mojibake(text)


def _html_to_text(markup: str) -> str:
    try:
        root = lxml.html.fragment_fromstring(markup, create_parent="div")
    except (etree.ParserError, ValueError):
        return re.sub(r"<[^>]+>", " ", markup)
    out: list[str] = []

    def walk(el: etree._Element, depth: int) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        tag = tag.lower()
        if tag in _DROP_TAGS:
            if el.tail:
                out.append(el.tail)
            return
        block = tag in _BLOCK_TAGS
        if block:
            out.append("\n")
        if tag == "li":
            out.append("- ")
        if el.text and tag != "br":
            out.append(el.text)
        for child in el:
            walk(child, depth + 1)
        if block:
            out.append("\n")
        if el.tail:
            out.append(el.tail)

    walk(root, 0)
    return "".join(out)


class _LineStart:
    """Where a ``^``-anchored multiline pattern can first match, found fast.

    ``re`` tries a ``^`` pattern at every position of the text (it cannot jump from line to line);
    a pattern that starts with a literal ``"\n"`` is scanned for that character at C speed. ``prefix``
    is what every match of the anchored pattern starts with; the anchored pattern then runs only
    from the first line start where ``prefix`` matches (no match can start before it), or not at
    all. The substitutions are the same: ``^`` in MULTILINE mode matches at the start of the slice
    exactly as after the newline that precedes it, and the patterns have no lookbehind.
    """

    def __init__(self, prefix: str) -> None:
        self._at_start = re.compile(prefix)
        self._after_newline = re.compile("\n(?:" + prefix + ")")

    def first(self, text: str) -> int:
        """The first line start where ``prefix`` matches, or -1."""
        if self._at_start.match(text):
            return 0
        m = self._after_newline.search(text)
        return -1 if m is None else m.start() + 1


def _sub_from(pattern: re.Pattern[str], start: _LineStart, repl: str, text: str) -> str:
    """``pattern.sub(repl, text)``, skipping the lines before ``start`` finds a possible match."""
    k = start.first(text)
    if k < 0:
        return text
    return text[:k] + pattern.sub(repl, text[k:]) if k else pattern.sub(repl, text)


#: What every match of ``_MD_HEADING`` and ``_MD_BULLET`` starts with at its line start.
_HEADING_START = _LineStart(r"\s{0,3}#")
_BULLET_START = _LineStart(r"\s*(?:[-*+•·]|\d+[.)、])\s")


def _markdown_to_text(text: str) -> str:
    """Markdown syntax out, text kept; each rule runs only when its marker character occurs.

    A marker of several characters is looked for only after its first character was found: a
    one-character search runs at memchr speed, a longer one reads the text several times slower.
    """
    if "`" in text and "```" in text:
        text = _MD_FENCE.sub("", text)
    if "]" in text and "](" in text:
        text = _MD_IMAGE.sub(r"\1", text)
        text = _MD_LINK.sub(r"\1", text)
    if "|" in text:
        text = _MD_TABLE_SEP.sub("", text)
    if (("-" in text and "---" in text) or ("*" in text and "***" in text) or ("_" in text and "___" in text)
            or ("=" in text and "===" in text)):
        text = _MD_RULE.sub("", text)
    if "#" in text:
        text = _sub_from(_MD_HEADING, _HEADING_START, "", text)
    if ">" in text:
        text = _MD_QUOTE.sub("", text)
    if "[" in text:
        text = _MD_CHECKBOX.sub("- ", text)
    text = _sub_from(_MD_BULLET, _BULLET_START, "- ", text)
    if ("*" in text and "**" in text) or ("_" in text and "__" in text) or ("~" in text and "~~" in text):
        # two passes (nested emphasis); the second only when the first changed something
        text, changed = _MD_EMPH.subn(r"\2", text)
        if changed:
            text = _MD_EMPH.sub(r"\2", text)
    if "*" in text:
        text = _MD_EM.sub(r"\1", text)
    if "`" in text:
        text = _MD_INLINE_CODE.sub(r"\1", text)
    return text


_MARKDOWN_CHARS = "#*_`[>|~"
#: A list item or a rule line: ``^[ \t]*(?:(?:[-+•·]|\d+[.)、])[ \t]|[-=]{3,})`` (MULTILINE), searched
#: after each newline (see ``_LineStart``).
_MARKDOWN_HINT = _LineStart(r"[ \t]*(?:(?:[-+•·]|\d+[.)、])[ \t]|[-=]{3})")
#: ``[ \t\f\v]{2,}|[\t\f\v]`` (a run of blanks, or one tab/form feed/vertical tab), spelled to start
#: with one character class: re then skips to the next blank at C speed instead of trying both
#: branches at every position. Same matches: a run takes every blank after the first, a lone
#: blank matches only if it is not a space.
_SPACES = re.compile(r"[ \t\f\v](?:[ \t\f\v]+|(?<=[\t\f\v]))")
_NEEDS_WORK = re.compile(r"[<&\u0080-\u00ff\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\u00a0\u3000\x00-\x08\x0b-\x1f\x7f#*_`\[>|~\r]")


def clean_inline(raw: str | None) -> str:
    """One-line clean text (titles, company names, locations): no markup, no line breaks."""
    if not raw:
        return ""
    text = str(raw)
    if _NEEDS_WORK.search(text) or "\n" in text:
        text = clean_text(text)
    return " ".join(text.split())


def clean_text(raw: str | None) -> str:
    """Plain text with paragraph and list-item line breaks, single spaces, no invisible characters."""
    if not raw:
        return ""
    text = str(raw)
    # substring pre-checks first: a regex alternation over a long text costs more than the test
    if "&" in text and "&lt;" in text and _ESCAPED_HTML_HINT.search(text) and not ("<" in text and _HTML_HINT.search(text)):
        text = html.unescape(text)   # doubly escaped HTML: unescape once to get the markup back
    text = repair_mojibake(text)
    if "<" in text and _HTML_HINT.search(text):
        text = _html_to_text(text)
    text = html.unescape(text) if "&" in text else text
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
        text = INVISIBLE.sub("", text)
        text = text.replace("\u2028", "\n").replace("\u2029", "\n\n").replace("\u00a0", " ").replace("\u3000", " ")
    elif len(text.encode("ascii").translate(None, _ASCII_CONTROLS)) != len(text):
        text = INVISIBLE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _has_markdown_char(text) or _MARKDOWN_HINT.first(text) >= 0:
        text = _markdown_to_text(text)
    if "  " in text or "\t" in text or "\f" in text or "\v" in text:
        text = _SPACES.sub(" ", text)   # the regex only matches where one of these substrings occurs
    # lines stripped (only when some line has blanks at an end: most texts have none by now);
    # blank lines dropped at both ends and runs of them kept as one empty line
    if _BLANK_AT_LINE_END.search(text) or (text and (_blank(text[0]) or _blank(text[-1]))):
        text = "\n".join([line.strip() for line in text.split("\n")])
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text.strip("\n")


#: A line break with a blank (whitespace other than a line break) after or before it; starts with
#: the literal line break, so re jumps from one to the next.
_BLANK_AT_LINE_END = re.compile(r"\n(?:[^\S\n]|(?<=[^\S\n]\n))")


def _blank(ch: str) -> bool:
    return ch != "\n" and ch.isspace()


#: C0 controls except \n and \t, and DEL: ASCII text holding none of these needs no invisible-character pass.
_ASCII_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F])


def _has_markdown_char(text: str) -> bool:
    """Whether any of ``_MARKDOWN_CHARS`` occurs: one C-level substring search per character."""
    return ("#" in text or "*" in text or "_" in text or "`" in text or "[" in text or ">" in text
            or "|" in text or "~" in text)


def detect_language(text: str | None) -> str | None:
    """"zh" when CJK characters make up a real share of the letters, "en" for Latin text, else None.

    Chinese postings are full of English tech words (Java, Go, AI), so a modest CJK share (15%)
    already means Chinese.
    """
    if not text:
        return None
    sample = text[:800]
    if sample.isascii():
        return "en" if _LATIN_LETTER.search(sample) else None
    # Count by UTF-8 bytes (C-level byte counts, no per-character regex): every ASCII letter is one
    # byte, and a CJK character's lead byte is E4-E9 or E3 followed by 90-BF (U+3400-U+3FFF).
    data = sample.encode("utf-8", "surrogatepass")
    n = len(data)
    if (_KANA_UTF8.search(data) is not None
            or b"\xea" in data or b"\xeb" in data or b"\xec" in data or b"\xed" in data):
        return _language_by_runs(sample)   # kana or hangul present: count them the exact way
    latin = n - len(data.translate(None, _ASCII_LETTERS))
    cjk = n - len(data.translate(None, _CJK_LEADS_UTF8))   # one pass deleting the lead bytes
    if b"\xe3" in data:
        cjk += len(_CJK_EXT_A_UTF8.findall(data))
    return _language_from_counts(latin, cjk, 0, 0)


_LATIN_LETTER = re.compile(r"[A-Za-z]")
_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_CJK_LEADS_UTF8 = b"\xe4\xe5\xe6\xe7\xe8\xe9"   # U+4000-U+9FFF
_CJK_EXT_A_UTF8 = re.compile(rb"\xe3[\x90-\xbf]")                            # U+3400-U+3FFF
#: Kana is U+3040-U+30FF (E3 81-83 ..): one regex that jumps from E3 to E3 (three two-byte
#: substring searches read the sample three times, slowly); hangul U+AC00-U+D7AF has the leads
#: EA-ED (which also cover nearby blocks: any of them sends the sample to the exact count).
_KANA_UTF8 = re.compile(rb"\xe3[\x81-\x83]")


def _language_by_runs(sample: str) -> str | None:
    latin = sum(map(len, _LATIN_RUN.findall(sample)))
    cjk = sum(map(len, _CJK_RUN.findall(sample)))
    kana = sum(map(len, _KANA_RUN.findall(sample)))
    hangul = sum(map(len, _HANGUL_RUN.findall(sample)))
    return _language_from_counts(latin, cjk, kana, hangul)


def _language_from_counts(latin: int, cjk: int, kana: int, hangul: int) -> str | None:
    total = cjk + kana + hangul + latin
    if total == 0:
        return None
    if kana > 0 and kana >= cjk * 0.2:
        return "ja"
    if hangul > cjk and hangul / total > 0.15:
        return "ko"
    if cjk / total >= 0.15:
        return "zh"
    if latin / total > 0.5:
        return "en"
    return None

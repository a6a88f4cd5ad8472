"""The dedupe key: one value for every copy of the same job (board + company site, reposts).

Copies differ in punctuation, case, width (全角/半角) and legal suffixes ("Acme Inc." on a
board, "ACME" on the careers page, "某某科技有限公司" vs "某某科技"), so the key is built from
normalized company + title + every city (as a set) + seniority + what tells openings apart:

- the requisition id when the description states one ("Job ID: 12345", "Req #R-0042", "职位编号：
  A123"): two requisitions are two jobs, and a repost of one keeps its id;
- otherwise a MinHash of the description's character shingles: exact copies always share it, an
  edited repost shares it with the probability that its shingle sets overlap (Jaccard; ~0.9 for a
  fixed typo or a new line), two different openings with the same title at one company (bilibili
  lists several 高级数据分析师 in Shanghai, each its own description) almost never.

Without a company the title alone is too common ("Software Engineer, Beijing" from unrelated
employers), so the description's hash stands in for the company: only true reposts share it.
docs/store.md "Duplicates" has the measured precision (bench/bench_dedupe_precision.py).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
import zlib

from jobpipe.models import NormalizedPosting

# Longest first, so "股份有限公司" is removed whole rather than leaving "股份".
_ZH_SUFFIXES = ("股份有限公司", "有限责任公司", "有限公司", "集团", "公司")
_EN_SUFFIXES = re.compile(
    r"(?:[\s,]+(?:inc|incorporated|ltd|limited|llc|l\.l\.c|plc|corp|corporation|co|company|gmbh|ag|sa|s\.a|bv|pte|pty|srl))+\.?$"
)
_REGION = re.compile(r"[(（](?:中国|china|北京|上海|深圳|杭州|广州)[)）]")
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def _fold(text: str | None) -> str:
    return unicodedata.normalize("NFKC", text or "").lower().strip()


@functools.lru_cache(maxsize=8192)   # a feed names the same few companies over and over
def normalize_company(company: str | None) -> str:
    name = _REGION.sub("", _fold(company))
    previous = None
    while previous != name:  # "Acme Holdings Co., Ltd." sheds each suffix in turn
        previous = name
        name = _EN_SUFFIXES.sub("", name).strip()
        for suffix in _ZH_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)].strip()
    return _NOT_WORD.sub("", name)


def normalize_text(text: str | None) -> str:
    return _NOT_WORD.sub("", _fold(text))


_normalize_city = functools.lru_cache(maxsize=4096)(normalize_text)


#: "Job ID: 12345", "Requisition #R-0042", "Req ID JR123", "职位编号：A123": an id with a digit.
#: Matched on the lowercased text and starting with a literal (re then skips by its first character).
_REQUISITION = re.compile(
    r"(?:req(?:uisition)?\.?(?:\s*(?:id|#|no\.?|number))?|job\s*(?:id|#|number|code|no\.?)|"
    r"职位编号|岗位编号|招聘编号|职位代码)\s*[:#：]?\s*([a-z]{0,4}[-_]?\d[\w-]{2,24})"
)
#: How much of a description the signature and the requisition id are read from (characters): the
#: head says which opening it is; the tail is boilerplate, and this runs for every staged posting.
_HEAD = 4000
#: Where the normalized text (no spaces, no punctuation) is cut into shingles: at frequent English
#: letter pairs and Chinese characters (pieces of ~10 characters), so the cuts depend on the content only, not on line breaks or punctuation
#: ("1、负责X；2、负责Y" and the same on two lines give the same pieces), and an edit changes only
#: the pieces it touches. Pieces shorter than ``_MIN_PIECE`` (headings) are common to unrelated
#: postings and left out.
_CUT = re.compile("th|in|er|an|的|和|与|及|责|求|有|能|等|务|作|在|为|对|于|行|理|相|关|性|经|验")
_MIN_PIECE = 8


def requisition_id(description: str | None) -> str | None:
    """The requisition id a description states (lowercased), or None."""
    text = (description or "")[:_HEAD].lower()
    for m in _REQUISITION.finditer(text):
        if not (m.start() and text[m.start() - 1].isalnum()):   # "prereq", "bluejob" are no label
            return m.group(1)
    return None


def content_signature(description: str | None) -> str:
    """A MinHash of the description: crc32 of every piece of its normalized text (see ``_CUT``), the
    minimum. Equal for texts equal after normalization (case, width, spacing, punctuation, line
    breaks), and for two texts with the probability that their sets of pieces overlap (Jaccard: a
    fixed typo in one piece of fifty keeps ~96%)."""
    body = normalize_text((description or "")[:_HEAD])
    if not body:
        return ""
    crc = zlib.crc32
    hashes = [crc(piece.encode("utf-8")) for piece in _CUT.split(body) if len(piece) >= _MIN_PIECE]
    return format(min(hashes) if hashes else crc(body.encode("utf-8")), "08x")


def dedupe_key(posting: NormalizedPosting) -> str:
    company = normalize_company(posting.company)
    if not company:
        body = normalize_text(posting.description_text)
        company = "~" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:12] if body else ""
    cities = ",".join(sorted({_normalize_city(c) for c in posting.cities}))
    req = requisition_id(posting.description_text)
    opening = f"req:{req}" if req else content_signature(posting.description_text)
    return f"{company}|{normalize_text(posting.title)}|{cities}|{posting.seniority or ''}|{opening}"

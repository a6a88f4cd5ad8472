"""The dedupe key: one value for every copy of the same job (board + company site, reposts).

Copies differ in punctuation, case, width (全角/半角) and legal suffixes ("Acme Inc." on a
board, "ACME" on the careers page, "某某科技有限公司" vs "某某科技"), so the key is built from
normalized company + title + first city. Without a company the title alone is too common
("Software Engineer, Beijing" from unrelated employers), so the description's fingerprint
stands in for the company: only true reposts share it.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

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


def dedupe_key(posting: NormalizedPosting) -> str:
    company = normalize_company(posting.company)
    if not company:
        body = normalize_text(posting.description_text)
        company = "~" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:12] if body else ""
    city = _normalize_city(posting.cities[0]) if posting.cities else ""
    return f"{company}|{normalize_text(posting.title)}|{city}"

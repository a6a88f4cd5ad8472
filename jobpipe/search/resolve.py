"""Filter values as users type them -> the canonical values stored in ``jobs``.

The normalizer owns the real city and skill tables (``jobpipe.normalize.resolve_city`` and
``canonical_skill``); search must resolve a filter exactly the way postings were normalized,
so it delegates to them whenever they are importable. The small tables below only keep
search usable on a checkout where the normalizer is absent, and never override it.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable
from typing import Any

# Fallback only: the normalizer's table is the source of truth.
_FALLBACK_CITIES: dict[str, str] = {
    "北京": "Beijing", "北京市": "Beijing", "beijing": "Beijing", "peking": "Beijing",
    "上海": "Shanghai", "上海市": "Shanghai", "沪": "Shanghai", "shanghai": "Shanghai",
    "深圳": "Shenzhen", "shenzhen": "Shenzhen", "广州": "Guangzhou", "guangzhou": "Guangzhou",
    "杭州": "Hangzhou", "hangzhou": "Hangzhou", "成都": "Chengdu", "chengdu": "Chengdu",
    "武汉": "Wuhan", "wuhan": "Wuhan", "南京": "Nanjing", "nanjing": "Nanjing",
    "苏州": "Suzhou", "suzhou": "Suzhou", "郑州": "Zhengzhou", "zhengzhou": "Zhengzhou",
    "西安": "Xi'an", "xian": "Xi'an", "xi'an": "Xi'an", "天津": "Tianjin", "tianjin": "Tianjin",
    "重庆": "Chongqing", "chongqing": "Chongqing", "厦门": "Xiamen", "xiamen": "Xiamen",
    "香港": "Hong Kong", "hong kong": "Hong Kong", "hk": "Hong Kong",
    "台北": "Taipei", "taipei": "Taipei", "新加坡": "Singapore", "singapore": "Singapore",
    "东京": "Tokyo", "tokyo": "Tokyo", "首尔": "Seoul", "seoul": "Seoul",
    "伦敦": "London", "london": "London", "纽约": "New York", "new york": "New York", "nyc": "New York",
    "旧金山": "San Francisco", "三藩市": "San Francisco", "san francisco": "San Francisco", "sf": "San Francisco",
    "山景城": "Mountain View", "mountain view": "Mountain View", "桑尼维尔": "Sunnyvale", "sunnyvale": "Sunnyvale",
    "西雅图": "Seattle", "seattle": "Seattle", "波士顿": "Boston", "boston": "Boston",
    "圣何塞": "San Jose", "san jose": "San Jose", "洛杉矶": "Los Angeles", "los angeles": "Los Angeles",
    "芝加哥": "Chicago", "chicago": "Chicago", "都柏林": "Dublin", "dublin": "Dublin",
    "悉尼": "Sydney", "sydney": "Sydney", "迪拜": "Dubai", "dubai": "Dubai",
    "伊斯坦布尔": "Istanbul", "istanbul": "Istanbul", "班加罗尔": "Bangalore", "bangalore": "Bangalore",
}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


def _optional(name: str) -> Callable[..., Any] | None:
    try:
        import jobpipe.normalize as normalize  # type: ignore[import-not-found]
    except ImportError:
        return None
    return getattr(normalize, name, None)


def _canonical_string(value: Any) -> str | None:
    """The normalizer may return a name, an object with ``.name``/``.canonical``, or None."""
    if value is None or isinstance(value, str):
        return value or None
    for attr in ("name", "canonical", "city"):
        inner = getattr(value, attr, None)
        if isinstance(inner, str) and inner:
            return inner
    return None


@functools.lru_cache(maxsize=4096)
def resolve_city(name: str) -> str | None:
    """Canonical English city name for ``name`` in Chinese or English; None when unknown."""
    if not name or not name.strip():
        return None
    external = _optional("resolve_city")
    if external is not None:
        try:
            resolved = _canonical_string(external(name))
        except Exception:  # a normalizer bug must not take search down
            resolved = None
        if resolved:
            return resolved
    return _FALLBACK_CITIES.get(_fold(name))


def city_aliases(canonical: str) -> list[str]:
    """Names that refer to ``canonical`` (for stripping them from a query already filtered on it)."""
    names = {canonical.lower()}
    names.update(alias for alias, city in _FALLBACK_CITIES.items() if city == canonical)
    external = _optional("city_aliases")
    if external is not None:
        try:
            names.update(_fold(a) for a in external(canonical) or ())
        except Exception:
            pass
    return sorted(names)


@functools.lru_cache(maxsize=4096)
def canonical_skill(name: str) -> str | None:
    """The taxonomy's canonical skill name, or None when the normalizer does not know it."""
    external = _optional("canonical_skill")
    if external is None or not name.strip():
        return None
    try:
        return _canonical_string(external(name))
    except Exception:
        return None

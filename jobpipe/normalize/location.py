"""Where a job is: canonical cities, a country and the remote/hybrid/onsite mode.

Postings write places in every way imaginable ("北京/上海/远程", "Mountain View, CA, United States",
"深圳-南山区", "HK/ remote", "马来西亚 · 吉隆坡（坐班办公）"). Search filters need one spelling per
city, so every alias maps to one canonical English name from the city table (data/cities.yaml +
data/cities_geonames.csv). The search engineer's city filter calls :func:`resolve_city` on the user's
input, so both sides agree on the spelling in either language.

Matching is deliberately conservative on free text: Latin names must be capitalised (or be the
whole segment), short abbreviations (SF, HK, SG) must be upper case, small towns need their state
("Hoopeston, IL"), and a Chinese name followed by 区/路/街 is a district or street, not a city.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

DATA_DIR = Path(__file__).resolve().parent / "data"

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Towns below this population only match with their state/country next to them.
_FREE_TEXT_MIN_POP = 15000
#: Alone, a name that is also a state or province means the city only from this size ("New York", not "California").
_REGION_OVER_CITY_POP = 100_000

#: Capitalised words that are also place names somewhere; never read them as a city in free text.
_LATIN_STOP = frozenset(
    """remote global worldwide anywhere hybrid onsite on-site office work based base prime flexible
    asia europe america africa north south east west central mobile home team time zone trade centre center
    senior junior lead china ok can may will new city district area region bay available preferred only
    or and the of in at to for with full part contract intern beijing time gmt utc est pst cst""".split()
)
_ADDRESS_SUFFIX = ("路", "街", "区", "區", "县", "縣", "道", "巷", "镇")
_ADDRESS_WORDS = ("公园", "大学", "大厦", "广场", "花园", "中心", "新村")

_REMOTE_RE = re.compile(
    r"远程|遠程|远端|遠端|居家|在家|分布式|移动办公|地点不限|不限地点|地点自由|任意地点|全远|无限制|"
    r"\bremote(ly)?\b|\bromote\b|telecommut|work from home|work-from-home|\bwfh\b|\banywhere\b|\bdistributed\b",
    re.I,
)
_NOT_REMOTE_RE = re.compile(
    r"不接受远程|不支持远程|非远程|暂不支持远程|暂时不接受远程|无法远程|不可远程|\bno remote\b|\bnot remote\b|"
    r"\bnon-remote\b|是?否?远程\s*[:：]\s*否|(?<!是)否\s*[（(]?\s*远程|^\s*否远程",
    re.I,
)
_HYBRID_RE = re.compile(r"\bhybrid\b|混合办公|混合模式|部分远程|半远程|弹性办公", re.I)
_ONSITE_RE = re.compile(
    r"\bon-?site\b|\bin[- ]office\b|\bin person\b|\bin-person\b|坐班|线下|現場|现场|驻场|到岗|办公室办公|"
    r"office[- ]based",
    re.I,
)
#: A location that says only "anywhere" means the job can be done remotely.
_ANYWHERE_RE = re.compile(r"^(不限|任意|全球|global|worldwide|anywhere|任何地点|地点不限|不限地点)$", re.I)

_SEPARATORS = re.compile(r"[/|｜,，;；、&+·•\n\r\t()（）\[\]【】<>:：]| - | – | — |\s+or\s+|\s+and\s+|或")
#: What separates places listed as alternatives ("北京/上海", "New York | London"), as opposed to
#: the parts of one place ("San Jose, California", "California - San Jose").
_ALTERNATIVES = re.compile(r"[/|｜;；、\n\r]|\s+or\s+|或")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
_RUN_RE = re.compile(r"[\u3400-\u9fff]+|[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F.'’\- ]*")


@dataclass(frozen=True)
class City:
    name: str
    country: str
    regions: tuple[str, ...] = ()
    pop: int = 0


@dataclass
class _Gazetteer:
    cities: dict[str, list[City]] = field(default_factory=dict)     # key -> candidates
    aliases: dict[str, list[str]] = field(default_factory=dict)     # canonical name -> aliases
    countries: dict[str, str] = field(default_factory=dict)         # key -> ISO code
    regions: dict[str, set[str]] = field(default_factory=dict)      # key -> ISO codes
    region_codes: dict[str, set[str]] = field(default_factory=dict)  # "CA" -> {"US"} (case-sensitive codes)
    cjk_max: int = 1
    canonical: set[str] = field(default_factory=set)
    curated: set[str] = field(default_factory=set)                  # names listed in cities.yaml


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    text = re.sub(r"[\s.'’]+", " ", text).strip().casefold()
    # "Saint Louis" and "St. Louis" are one name ("St. Louis" is the gazetteer's, "Saint Louis, MO"
    # the board's): both key as "st louis", and the state then picks the right town
    return _SAINT.sub(lambda m: "ste " if m.group(1) else "st ", text)


_SAINT = re.compile(r"^(?:saint(e)?|st(e)?)(?:[ -]+)(?=\w)")


def _add_city(g: _Gazetteer, key: str, city: City) -> None:
    if not key:
        return
    bucket = g.cities.setdefault(key, [])
    if all(c.name != city.name or c.country != city.country for c in bucket):
        bucket.append(city)
    if _CJK_CHAR.search(key):
        g.cjk_max = max(g.cjk_max, len(key))


@lru_cache(maxsize=1)
def _gazetteer() -> _Gazetteer:
    g = _Gazetteer()
    merged: dict[tuple[str, str], dict] = {}
    with open(DATA_DIR / "cities_geonames.csv", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            merged[(row["name"], row["country"])] = {
                "name": row["name"], "country": row["country"],
                "region": [r for r in row["regions"].split(",") if r], "pop": int(row["pop"] or 0), "aliases": [],
            }
    with open(DATA_DIR / "cities.yaml", encoding="utf-8") as f:
        for entry in yaml.load(f, Loader=_Loader)["cities"]:
            k = (str(entry["name"]), str(entry["country"]))
            g.curated.add(k[0])
            cur = merged.setdefault(k, {"name": k[0], "country": k[1], "region": [], "pop": 0, "aliases": []})
            cur["region"] = list(dict.fromkeys(list(cur["region"]) + [str(r) for r in entry.get("region") or []]))
            cur["pop"] = max(int(cur["pop"]), int(entry.get("pop") or 0))
            cur["aliases"] = list(dict.fromkeys(cur["aliases"] + [str(a) for a in entry.get("aliases") or []]))
    for e in merged.values():
        city = City(e["name"], e["country"], tuple(e["region"]), e["pop"])
        g.canonical.add(city.name)
        names = [city.name, *e["aliases"]]
        g.aliases.setdefault(city.name, [])
        for name in names:
            if name not in g.aliases[city.name] and name != city.name:
                g.aliases[city.name].append(name)
            _add_city(g, _key(name), city)
            if name.endswith("市") and len(name) > 2:
                _add_city(g, _key(name[:-1]), city)
    with open(DATA_DIR / "countries.yaml", encoding="utf-8") as f:
        for entry in yaml.load(f, Loader=_Loader)["countries"]:
            code = str(entry["code"])
            for name in [entry["name"], *(entry.get("aliases") or [])]:
                g.countries.setdefault(_key(str(name)), code)
            for region in entry.get("regions") or []:
                region = str(region)
                if re.fullmatch(r"[A-Z]{2,3}", region):
                    g.region_codes.setdefault(region, set()).add(code)
                else:
                    g.regions.setdefault(_key(region), set()).add(code)
                    if _CJK_CHAR.search(region):
                        g.cjk_max = max(g.cjk_max, len(region))
    for name in list(g.countries):
        if _CJK_CHAR.search(name):
            g.cjk_max = max(g.cjk_max, len(name))
    return g


def known_cities() -> frozenset[str]:
    """Every canonical city name (what the schema accepts in ``cities``)."""
    return frozenset(_gazetteer().canonical)


def city_aliases(canonical: str) -> list[str]:
    """All spellings of a canonical city (for search query expansion), canonical name first."""
    g = _gazetteer()
    if canonical not in g.aliases:
        return []
    return [canonical, *g.aliases[canonical]]


@dataclass
class _Found:
    cities: list[list[City]] = field(default_factory=list)  # candidates per mention, in order
    countries: list[str] = field(default_factory=list)
    region_countries: list[set[str]] = field(default_factory=list)
    region_codes: set[str] = field(default_factory=set)
    region_named: set[int] = field(default_factory=set)     # indexes of city mentions that also name a region
    country_or_region: dict[int, set[str]] = field(default_factory=dict)  # country index -> the region's countries
    city_groups: list[int] = field(default_factory=list)    # per city mention: which listed alternative it is in
    group: int = 0

    def add_city(self, cands: list[City]) -> None:
        self.cities.append(cands)
        self.city_groups.append(self.group)


def _accept_cjk(text: str, end: int) -> bool:
    tail = text[end:end + 2]
    if any(ch in _ADDRESS_SUFFIX for ch in tail[:1]) or (len(tail) == 2 and tail[1] in "路街道"):
        return False
    return not any(text.startswith(w, end) for w in _ADDRESS_WORDS)


def _scan_cjk(run: str, whole_segment: bool, found: _Found) -> None:
    g = _gazetteer()
    i, n = 0, len(run)
    while i < n:
        matched = False
        for length in range(min(g.cjk_max, n - i), 0, -1):
            piece = run[i:i + length]
            if length == 1 and not (whole_segment and n == 1):
                break
            # a district alias after other characters is the tail of a longer name ("渝北区" is no 北区)
            if piece in g.cities and _accept_cjk(run, i + length) and not (i and piece[-1] in "区區县縣"):
                found.add_city(g.cities[piece])
            elif piece in g.countries:
                found.countries.append(g.countries[piece])
            elif piece in g.regions:
                found.region_countries.append(g.regions[piece])
            else:
                continue
            i += length
            matched = True
            break
        if not matched:
            i += 1


def _scan_latin(run: str, whole_segment: bool, found: _Found) -> None:
    g = _gazetteer()
    words = [w for w in re.split(r"\s+", run.strip(" .-'’")) if w]
    # "Remote-US", "Onsite-Hangzhou": a hyphen between a mode word and a place separates them
    expanded: list[str] = []
    for w in words:
        if "-" in w and _key(w) not in g.cities:
            expanded.extend(p for p in w.split("-") if p)
        else:
            expanded.append(w)
    words = expanded
    i, n = 0, len(words)
    while i < n:
        step = 1
        for length in range(min(5, n - i), 0, -1):
            phrase = " ".join(words[i:i + length]).strip(".,")
            k = _key(phrase)
            whole = whole_segment and length == n
            if k in g.cities and not (k in g.countries and all(c.country != g.countries[k] for c in g.cities[k])):
                cands = g.cities[k]
                if _latin_ok(phrase, k, whole, cands):
                    if k in g.regions:   # "California", "Washington": a state, or a town of that name
                        found.region_named.add(len(found.cities))
                        found.region_countries.append(g.regions[k])
                    found.add_city(cands)
                    step = length
                    break
            if k in g.countries and (whole or phrase[:1].isupper()) and (len(phrase) > 2 or phrase.isupper()):
                found.countries.append(g.countries[k])
                if k in g.regions:   # "Georgia": the country, or the state "Georgia Southern, GA" is in
                    found.country_or_region[len(found.countries) - 1] = g.regions[k]
                step = length
                break
            if phrase in g.region_codes and length == 1:
                found.region_codes.add(phrase)
                found.region_countries.append(g.region_codes[phrase])
                break
            if k in g.regions and (whole or phrase[:1].isupper()):
                found.region_countries.append(g.regions[k])
                step = length
                break
        i += step


def _latin_ok(phrase: str, key: str, whole: bool, cands: list[City]) -> bool:
    if len(key) <= 3:
        return phrase.isupper() and len(phrase) >= 2   # SF, HK, SG, NYC: only in capitals
    if whole:
        return True
    if key in _LATIN_STOP or not phrase[:1].isupper():
        return False
    return max(c.pop for c in cands) >= _FREE_TEXT_MIN_POP


def _segments(text: str) -> list[str]:
    return [s.strip() for s in _SEPARATORS.split(text) if s and s.strip()]


def _scan(text: str, found: _Found) -> None:
    text = unicodedata.normalize("NFKC", text)
    for alternative in _ALTERNATIVES.split(text):
        found.group += 1
        _scan_alternative(alternative, found)


def _scan_alternative(text: str, found: _Found) -> None:
    for seg in _segments(text):
        runs = _RUN_RE.findall(seg)
        single = len(runs) == 1
        for run in runs:
            if _CJK_CHAR.match(run):
                _scan_cjk(run, single and run == seg, found)
            else:
                _scan_latin(run, single and run.strip() == seg.strip(" .-"), found)


def _pick(cands: list[City], countries: set[str], region_codes: set[str]) -> City:
    def score(c: City) -> tuple[int, int, int]:
        in_region = bool(region_codes & set(c.regions)) and c.country in {"US"}
        # "Toronto, CA", "Berlin, DE": a state code that is also the city's country code may
        # mean either; population then tells Toronto (Canada) from Toronto, Ohio.
        return (int(in_region or c.country in region_codes), int(c.country in countries), c.pop)
    return max(cands, key=score)


def _mode_of(text: str) -> str | None:
    """remote/hybrid/onsite as a text states it, else None; negations ("非远程", "是否远程：否") count as onsite."""
    if _HYBRID_RE.search(text):
        return "hybrid"
    cleaned = _NOT_REMOTE_RE.sub(" ", text)
    negated = cleaned != text
    if _REMOTE_RE.search(cleaned):
        return "remote"
    if negated or _ONSITE_RE.search(text):
        return "onsite"
    return None


_HINT_WORDS = {
    "telecommute": "remote", "remote": "remote", "true": "remote", "yes": "remote", "1": "remote",
    "fully remote": "remote", "remote_only": "remote", "remote only": "remote", "是": "remote",
    "hybrid": "hybrid", "onsite": "onsite", "on-site": "onsite", "office": "onsite", "in_office": "onsite",
    "in office": "onsite", "false": "onsite", "no": "onsite", "0": "onsite", "否": "onsite",
}


def _remote_mode(text: str, hint: str | None) -> str | None:
    mode = _mode_of(text)
    if mode is None:
        stripped = text.strip(" .。")
        if stripped and _ANYWHERE_RE.match(stripped):
            mode = "remote"
    if mode is not None or hint is None:
        return mode
    h = unicodedata.normalize("NFKC", str(hint)).strip()
    if h.lower() in _HINT_WORDS:
        return _HINT_WORDS[h.lower()]
    if re.match(r"^\s*(否|不|no\b|not\b)", h, re.I):
        return "onsite"
    return _mode_of(h)


def resolve_locations(
    text: str | None, extra: list[str] | None = None, remote_hint: str | None = None
) -> tuple[list[str], str | None, str | None]:
    """(canonical cities in order of mention, ISO country, "remote"|"hybrid"|"onsite"|None).

    The country is the first resolved city's; without a city, the first country (or state/province)
    named. ``remote`` is None when the text does not say.

    A source repeats the same few hundred location strings across thousands of postings, so the
    common call (one location string, no extra list) is answered from a cache.
    """
    if not extra and (text is None or type(text) is str) and (remote_hint is None or type(remote_hint) is str):
        cities, country, remote = _resolve_one(text, remote_hint)
        return list(cities), country, remote
    return _resolve(text, extra, remote_hint)


@lru_cache(maxsize=8192)
def _resolve_one(text: str | None, remote_hint: str | None) -> tuple[tuple[str, ...], str | None, str | None]:
    cities, country, remote = _resolve(text, None, remote_hint)
    return tuple(cities), country, remote


def _resolve(
    text: str | None, extra: list[str] | None, remote_hint: str | None
) -> tuple[list[str], str | None, str | None]:
    parts = [p for p in [text, *(extra or [])] if p and str(p).strip()]
    found = _Found()
    for part in parts:
        _scan(str(part), found)
    named = set(found.countries)
    for rc in found.region_countries:
        named |= rc
    cities: list[str] = []
    first_country: str | None = None
    for cands in _cities_meant(found):
        city = _pick(cands, named, found.region_codes)
        if city.name not in cities:
            cities.append(city.name)
        if first_country is None:
            first_country = city.country
    country = first_country
    if country is None and found.countries:
        country = found.countries[0]
        also = found.country_or_region.get(0)
        if also and found.region_codes and any(also & g for g in (_gazetteer().region_codes[c] for c in found.region_codes)):
            # "Georgia Southern, GA": a state code next to a name that is a country and a state
            country = next(iter(also & set().union(*(_gazetteer().region_codes[c] for c in found.region_codes))))
    if country is None and found.region_countries:
        only = found.region_countries[0]
        country = next(iter(only)) if len(only) == 1 else ("US" if "US" in only else sorted(only)[0])
    joined = " / ".join(str(p) for p in parts)
    remote = _remote_mode(unicodedata.normalize("NFKC", joined), remote_hint)
    return cities, country, remote


def _cities_meant(found: _Found) -> list[list[City]]:
    """City mentions, without names that read as the state or province of a city next to them.

    "San Jose, California" and "California - San Jose" name one city in a state (California
    is also a town in Maryland), while "New York/Shanghai" lists two cities, and "New York" or
    "Washington" alone mean the big city. So a name that is also a region counts as a city only
    when no other city is named in the same listed alternative, and a city of that name is large.
    """
    if not found.region_named:
        return found.cities
    plain_groups = {found.city_groups[i] for i in range(len(found.cities)) if i not in found.region_named}
    return [c for i, c in enumerate(found.cities)
            if i not in found.region_named
            or (found.city_groups[i] not in plain_groups and max(city.pop for city in c) >= _REGION_OVER_CITY_POP)]


def resolve_city(name: str | None) -> str | None:
    """The canonical English name of a city given in any language or alias, else None.

    Tries the name as a whole first ("Peking", "沪", "SF"), then reads it as a location
    ("Mountain View, CA", "深圳-南山区") and returns the first city found.
    """
    if not name or not str(name).strip():
        return None
    g = _gazetteer()
    raw = str(name).strip()
    k = _key(raw)
    if k.endswith("市") and len(k) > 2 and k not in g.cities:
        k = k[:-1]
    cands = g.cities.get(k)
    if cands and not (k in g.regions and max(c.pop for c in cands) < _REGION_OVER_CITY_POP):
        return _pick(cands, set(), set()).name
    cities, _, _ = resolve_locations(raw)   # "California" is the state: no city (a filter then matches the text)
    return cities[0] if cities else None


def is_city_name(text: str) -> bool:
    """Whether ``text`` as a whole is a city's name or alias ("New York", "Ho Chi Minh City"), not
    a text that mentions one: a resume's first line that is a city is no person's name."""
    return bool(text and text.strip() and _key(text.strip()) in _gazetteer().cities)


def city_country(canonical: str) -> str | None:
    """Country of a canonical city (the most populous entry of that name)."""
    cands = _gazetteer().cities.get(_key(canonical))
    if not cands:
        return None
    exact = [c for c in cands if c.name == canonical] or cands
    return max(exact, key=lambda c: c.pop).country


#: Where a title names places: a leading bracket ("[杭州/远程]", "【远程】"), any parenthesis
#: ("(深圳/广州)", "(Madrid based)") and a trailing " - X" ("... Executive - Copenhagen").
_TITLE_GROUPS = re.compile(
    r"^\s*[\[【(（]([^\]】)）\[【(（]{1,40})[\]】)）]|[(（]([^()（）]{1,30})[)）]|\s[-–—|｜]\s*([^-–—|｜()（）]{2,30})$"
)
#: Words a title's place group may hold besides places: the work arrangement and fillers.
_TITLE_MODE_WORDS = re.compile(
    r"可远程办公|可远程|远程办公|远程工作|全远程|全远端|海外远程|远程|遠程|远端|居家|办公|工作地址|工作地点|地点|上班|驻|"
    r"\b(?:remote(?:ly)?|hybrid|on-?site|wfh|anywhere|worldwide|global|based|base|only)\b|(?<![a-z])base(?=[\u4e00-\u9fff])",
    re.I,
)


def _is_place(text: str) -> bool:
    """Whether ``text`` alone is the name of a city, a country or a state/province.

    Exact names only ("深圳中晟达集团" is a company, not 深圳), and a Latin city name only when the
    curated table lists a city of that name: a title's "(Mobile)" or "(java+Oracle)" names a field,
    not Mobile, Alabama.
    """
    g = _gazetteer()
    k = _key(text)
    if k.endswith("市") and k[:-1] in g.cities:
        k = k[:-1]
    cands = g.cities.get(k)
    if cands and (_CJK_CHAR.search(k) or any(c.name in g.curated for c in cands)):
        return True
    return k in g.countries or k in g.regions or text in g.region_codes


@lru_cache(maxsize=8192)
def title_places(title: str) -> tuple[tuple[str, ...], str | None, str | None]:
    """(cities, country, remote mode) a title states in its place groups, else empty.

    A group counts only when every listed alternative in it is a place or an arrangement word
    ("[北京/成都/远程]", "(Remote)", "- Berlin, Germany"), so "(Python/Go)", "(f/m/d)" or "- Data
    Visualization" add nothing. Cached: titles repeat.
    """
    cities: list[str] = []
    country = mode = None
    for m in _TITLE_GROUPS.finditer(title or ""):
        group = next(g for g in m.groups() if g is not None)
        parts = [p.strip() for p in _SEPARATORS.split(group) if p and p.strip()]
        if not parts:
            continue
        rests = [_TITLE_MODE_WORDS.sub(" ", p).strip(" .-_") for p in parts]
        # an unknown code in capitals beside known places ("[SZ/HK]") is a place abbreviation
        if not all(not rest or _is_place(rest) or re.fullmatch(r"[A-Z]{2,3}", rest) for rest in rests):
            continue
        found_cities, found_country, found_mode = resolve_locations(group)
        if not (found_cities or found_country or found_mode):
            continue
        cities.extend(c for c in found_cities if c not in cities)
        country = country or found_country
        mode = mode or found_mode
    return tuple(cities), country, mode

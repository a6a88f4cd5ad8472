"""Compose the demo's job openings from hand-written parts, deterministically.

One seeded ``random.Random`` drives every choice (title variant, city, sentences, pay,
dates), so the same code always yields the same postings and the committed data files can
be checked against a fresh run. Renderers then write each opening in its source's format.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from jobpipe.demo.catalog_en import CAMPUS_REQUIREMENTS_EN, CONTRACT_NOTE_EN, INTERN_REQUIREMENTS_EN, ROLES_EN
from jobpipe.demo.catalog_zh import CAMPUS_REQUIREMENTS_ZH, INTERN_REQUIREMENTS_ZH, ROLES_ZH
from jobpipe.demo.companies import CITIES, COMPANIES, CROSS_POSTS, City, Company, Voice
from jobpipe.demo.roles import Role
from jobpipe.demo.salary import Pay, make_pay

SEED = 20261129
ROLES: dict[str, Role] = {r.key: r for r in (*ROLES_EN, *ROLES_ZH)}

#: What each variant means for job type.
#: The postings ``jobpipe.demo.KNOWN_POSTING*`` name: (company, plan index) -> (title, cities).
#: They keep their title and place whatever else changes in the generator, and never expire.
PINNED = {("qinghe", 4): ("高级大模型算法工程师（后训练）", ("shanghai",)),
          ("orbitkite", 0): ("Perception Engineer", ("berlin",))}

JOB_TYPES = {"": "full_time", "senior": "full_time", "intern": "intern", "campus": "campus", "contract": "contract"}


@dataclass
class Opening:
    """One job opening, before it is written in any source format."""

    company: str                    # Company slug
    index: int                      # position in the company's plan (stable ids derive from it)
    lang: str
    role: str
    variant: str
    title: str
    job_type: str                   # full_time | intern | campus | contract
    department: str
    cities: list[str]               # City keys; remote_* means remote
    hybrid: bool
    pay: Pay | None
    intro: str
    summary: str
    duties: list[str]
    requirements: list[str]
    bonus: list[str]
    closing: list[str]              # contract note, pay line, benefits
    company_name: str
    posted: datetime
    updated: datetime
    valid_through: date | None
    channels: list[str] = field(default_factory=list)   # greenhouse | lever | jsonld (cross-posts: two)
    site_only: bool = False         # on the career site of a company whose main channel is a board
    quirks: list[str] = field(default_factory=list)     # deliberate messiness, named for tests
    ids: dict[str, str] = field(default_factory=dict)   # per format: greenhouse, internal, requisition, lever, site

    @property
    def remote(self) -> bool:
        return self.cities[0].startswith("remote_")

    def city(self, i: int = 0) -> City:
        return CITIES[self.cities[i]]


def _title(role: Role, variant: str, rng: random.Random) -> str:
    base = rng.choice(role.titles)
    if variant == "intern" and role.intern_title:
        return role.intern_title
    if variant == "campus" and role.campus_title:
        return role.campus_title
    if variant == "senior":
        if role.lang == "zh":
            return base if base.startswith(("高级", "资深")) or "高级" in base else "高级" + base
        return base if base.startswith(("Senior", "Staff")) else ("Staff " if rng.random() < 0.25 else "Senior ") + base
    if variant == "contract":
        return f"{base} (Contract)" if role.lang == "en" else f"{base}（外包/合同制）"
    if variant == "intern":
        return f"{base} Intern" if role.lang == "en" else f"{base}实习生"
    return base


def _years(role: Role, variant: str) -> str:
    lo, hi = role.years
    if variant == "senior":
        return str(hi + 1)
    return str(lo)


def _fill(text: str, voice: Voice, years: str) -> str:
    return text.format(product=voice.product, domain=voice.domain, years=years)


def _pick(rng: random.Random, pool: tuple[str, ...], k: int) -> list[str]:
    """``k`` sentences of ``pool`` in their written order (the order reads naturally)."""
    chosen = sorted(rng.sample(range(len(pool)), min(k, len(pool))))
    return [pool[i] for i in chosen]


def _voice(company: Company, lang: str) -> Voice:
    return company.voices.get(lang) or company.voices[company.lang]


def _cities(company: Company, rng: random.Random, lang: str, variant: str) -> list[str]:
    """Where an opening is: weighted towards the company's main city, in a place where its
    language is spoken; interns and graduates sit in an office."""
    pool = [c for c in company.cities if not (variant in ("intern", "campus") and c.startswith("remote_"))]
    if lang != company.lang:
        chinese = ("CN", "SG", "HK")
        fitting = [c for c in pool if (CITIES[c].country in chinese) == (lang == "zh")]
        pool = fitting or pool
    weights = [len(pool) - i + 1 for i in range(len(pool))]
    first = rng.choices(pool, weights)[0]
    cities = [first]
    near = {"GB", "DE"} if CITIES[first].country in ("GB", "DE") else {CITIES[first].country}
    offices = [c for c in pool if not c.startswith("remote_") and c != first and CITIES[c].country in near]
    if not first.startswith("remote_") and offices and rng.random() < 0.15:
        cities.append(rng.choice(offices))
    return cities


def _pay_line(lang: str, pay: Pay | None) -> str | None:
    if pay is None:
        return None
    if lang == "zh":
        return f"薪资范围：{pay.text}"
    return f"The pay range for this role is {pay.text.rstrip('.')}. Final offers depend on experience and location."


def compose_opening(company: Company, index: int, plan: str, rng: random.Random) -> Opening:
    role_key, _, variant = plan.partition(":")
    role = ROLES[role_key]
    voice = _voice(company, role.lang)
    years = _years(role, variant)
    cities = _cities(company, rng, role.lang, variant)
    pin = PINNED.get((company.slug, index))
    if pin:
        cities = list(pin[1])
    region = CITIES[cities[0]].region_pay
    pay: Pay | None = make_pay(rng, role.pay, region, variant)
    # Some employers (mostly US and European boards) leave pay out of the posting.
    if role.lang == "en" and variant in ("", "senior") and region not in ("us",) and rng.random() < 0.2:
        pay = None
    if role.lang == "zh":
        k_duties, k_reqs = rng.choice(((4, 4), (5, 4), (5, 5), (4, 5)))
    else:
        k_duties, k_reqs = rng.choice(((4, 4), (5, 4), (4, 5)))
    duties = [_fill(s, voice, years) for s in _pick(rng, role.duties, k_duties)]
    reqs_pool: tuple[str, ...]
    if variant == "intern":
        reqs_pool = INTERN_REQUIREMENTS_ZH if role.lang == "zh" else INTERN_REQUIREMENTS_EN
        requirements = _pick(rng, reqs_pool, 4)
    elif variant == "campus":
        reqs_pool = CAMPUS_REQUIREMENTS_ZH if role.lang == "zh" else CAMPUS_REQUIREMENTS_EN
        requirements = _pick(rng, reqs_pool, 4)
    else:
        # The degree-and-years line always comes first; the rest vary.
        requirements = [_fill(s, voice, years) for s in (role.requirements[0], *_pick(rng, role.requirements[1:], k_reqs - 1))]
    bonus = [_fill(s, voice, years) for s in _pick(rng, role.bonus, 2)]
    closing = []
    if variant == "contract":
        closing.append(CONTRACT_NOTE_EN)
    line = _pay_line(role.lang, pay)
    if line:
        closing.append(line)
    closing.append(voice.benefits)
    tz = CITIES[cities[0]].tz
    hours, minutes = int(tz[:3]), int(tz[0] + tz[4:])
    posted = datetime(2026, 9, 20) + timedelta(days=rng.randrange(0, 68), minutes=rng.randrange(8 * 60, 19 * 60))
    updated = posted + timedelta(days=rng.randrange(0, 6), minutes=rng.randrange(0, 300))
    if updated > datetime(2026, 11, 28, 18):
        updated = datetime(2026, 11, 28, 18)
    valid_through = None
    if rng.random() < 0.45:
        valid_through = date(2027, rng.choice((3, 4, 6, 9, 12)), rng.choice((15, 28)))
    del hours, minutes  # timestamps are rendered with the city's offset by each renderer
    opening = Opening(
        company=company.slug, index=index, lang=role.lang, role=role_key, variant=variant,
        title=_title(role, variant, rng), job_type=JOB_TYPES[variant], department=role.department,
        cities=cities, hybrid=(not cities[0].startswith("remote_") and role.lang == "en" and rng.random() < 0.3),
        pay=pay, intro=voice.intro, summary=_fill(rng.choice(role.summary), voice, years),
        duties=duties, requirements=requirements, bonus=bonus, closing=closing, company_name=voice.name,
        posted=posted, updated=updated, valid_through=valid_through,
    )
    if pin:
        opening.title, opening.valid_through, opening.hybrid = pin[0], None, False
        opening.quirks.append("known_posting")
    return opening


def compose_all(seed: int = SEED) -> list[Opening]:
    """Every demo opening, in a stable order: each company's plan, then its site-only roles."""
    rng = random.Random(seed)
    openings: list[Opening] = []
    for company in COMPANIES:
        for i, plan in enumerate(company.roles):
            opening = compose_opening(company, i, plan, rng)
            opening.channels = [company.channel]
            if i in CROSS_POSTS.get(company.slug, ()):
                opening.channels.append("jsonld")
            openings.append(opening)
        for j, plan in enumerate(company.site_roles):
            opening = compose_opening(company, len(company.roles) + j, plan, rng)
            opening.channels = ["jsonld"]
            opening.site_only = True
            openings.append(opening)
    _add_quirks(openings)
    _assign_ids(openings)
    return openings


#: How each company's career site numbers its postings (real sites all differ).
_SITE_ID = {
    "yunzhan": lambda n, r: str(100200 + n * 7 + r.randrange(7)),
    "shiguang": lambda n, r: f"SG2026-{300 + n * 3 + r.randrange(3):04d}",
    "xinglan": lambda n, r: f"xl-{r.getrandbits(24):06x}",
    "luming": lambda n, r: f"LM{10080 + n * 11 + r.randrange(11)}",
    "fernhollow": lambda n, r: f"FH-{2200 + n * 5 + r.randrange(5)}",
    "brambleway": lambda n, r: f"bw-{400 + n * 9 + r.randrange(9):05d}",
}
_REQ_PREFIX = {"lumenwise": "LW", "quillmark": "QM", "qinghe": "QH", "orbitkite": "OK"}


def _assign_ids(openings: list[Opening]) -> None:
    """Stable ids in each format's own style, from a generator seeded per company."""
    rngs: dict[str, random.Random] = {}
    for o in openings:
        r = rngs.setdefault(o.company, random.Random(f"{SEED}-{o.company}-ids"))
        if "greenhouse" in o.channels or (o.site_only and o.company in _REQ_PREFIX):
            o.ids["greenhouse"] = str(r.randrange(4_000_000, 8_999_999) * 1000 + 2)
            o.ids["internal"] = str(r.randrange(4_000_000, 6_999_999) * 1000 + 2)
            o.ids["requisition"] = f"{_REQ_PREFIX[o.company]}-{1000 + o.index * 13 + r.randrange(13)}"
        if "lever" in o.channels:
            o.ids["lever"] = str(uuid.UUID(int=r.getrandbits(128), version=4))
        if "jsonld" in o.channels:
            make = _SITE_ID.get(o.company)
            o.ids["site"] = make(o.index, r) if make else o.ids["requisition"]
    seen: set[str] = set()
    for o in openings:
        for kind in ("greenhouse", "lever", "site"):
            if kind in o.ids:
                key = f"{o.company}/{kind}/{o.ids[kind]}"
                assert key not in seen, key
                seen.add(key)


def _add_quirks(openings: list[Opening]) -> None:
    """Deliberate messy-but-valid input that real sources produce, at fixed places."""
    def first(pred) -> Opening:
        return next(o for o in openings if pred(o))

    # A floor-only salary, as Chinese boards often write it.
    o = first(lambda o: o.company == "luming" and o.variant == "senior")
    o.pay = Pay("25k以上", "CNY", 25000, None, "MONTH")
    o.closing = [f"薪资范围：{o.pay.text}" if c.startswith("薪资范围") else c for c in o.closing]
    o.quirks.append("salary_floor")
    # A relative posting date, as scraped listings often show it.
    o = first(lambda o: o.company == "yunzhan" and o.role == "zh_qa")
    o.quirks.append("relative_date")
    # HTML entities left in a JSON-LD title and description.
    o = first(lambda o: o.company == "fernhollow" and o.role == "en_security")
    o.title = "Security Engineer &#8211; Identity &amp; Access"
    o.quirks.append("html_entities")
    o = first(lambda o: o.company == "shiguang" and o.role == "zh_pm")
    o.quirks.append("html_entities")
    # A JSON-LD block with a trailing comma (browsers' and lenient parsers' favourite).
    o = first(lambda o: o.company == "yunzhan" and o.role == "zh_frontend" and o.variant == "")
    o.quirks.append("trailing_comma")
    # Two JobPostings on one page (one game role hiring in two studios).
    a = first(lambda o: o.company == "xinglan" and o.role == "zh_game_client" and o.variant == "")
    b = first(lambda o: o.company == "xinglan" and o.role == "zh_game_client" and o.variant == "senior")
    a.quirks.append("shared_page")
    b.quirks.append("shared_page_second")

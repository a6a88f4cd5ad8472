"""Realistic pay for a demo posting: a band by role, level and region, written the way that
region's postings write it ("15-25K·14薪", "$140,000 - $180,000 a year", "HKD 40k-55k/month")."""

from __future__ import annotations

import random
from dataclasses import dataclass

#: Mid-level bands. cn/sg/hk: thousands per month; us/uk/de: thousands per year.
_BANDS: dict[str, dict[str, tuple[float, float]]] = {
    "cn": {"eng": (20, 35), "ml": (30, 50), "pm": (20, 35), "design": (15, 25), "data": (15, 25),
           "sales": (12, 20), "ops": (10, 16)},
    "us": {"eng": (150, 190), "ml": (180, 240), "pm": (150, 195), "design": (130, 170), "data": (110, 145),
           "sales": (90, 120), "ops": (80, 105)},
    "uk": {"eng": (70, 90), "ml": (85, 110), "pm": (75, 95), "design": (60, 78), "data": (50, 68),
           "sales": (55, 70), "ops": (40, 52)},
    "de": {"eng": (65, 82), "ml": (78, 98), "pm": (70, 88), "design": (58, 72), "data": (55, 70),
           "sales": (55, 70), "ops": (45, 56)},
    "sg": {"eng": (7, 10), "ml": (9, 13), "pm": (8, 11), "design": (6, 8.5), "data": (6, 8),
           "sales": (6, 9), "ops": (4.5, 6)},
    "hk": {"eng": (35, 50), "ml": (45, 60), "pm": (40, 55), "design": (30, 42), "data": (30, 42),
           "sales": (25, 35), "ops": (22, 30)},
}


@dataclass(frozen=True)
class Pay:
    """A salary as the posting states it: free text, plus the structured form when the
    source format has one (schema.org MonetaryAmount, Lever salaryRange)."""

    text: str
    currency: str | None = None
    min: float | None = None
    max: float | None = None
    unit: str | None = None        # HOUR | DAY | MONTH | YEAR (schema.org unitText)


def _k(value: float) -> str:
    return f"{value:g}"


def _money(value: float) -> str:
    return f"{int(round(value)):,}"


def make_pay(rng: random.Random, pay_class: str, region: str, variant: str) -> Pay:
    """Pay for one posting; the same rng sequence always gives the same text."""
    low = region == "cn_low"
    region = "cn" if low else region
    if variant == "intern":
        return _intern_pay(rng, pay_class, region)
    if variant == "contract":
        return _contract_pay(rng, region)
    if variant == "campus":
        return _campus_pay(rng, pay_class, region)
    lo, hi = _BANDS[region][pay_class]
    factor = rng.choice((0.9, 1.0, 1.0, 1.1)) * (1.45 if variant == "senior" else 1.0) * (0.8 if low else 1.0)
    lo, hi = lo * factor, hi * factor
    if region == "cn":
        lo, hi = round(lo), round(hi)
        if rng.random() < 0.08:
            return Pay("面议")
        months = rng.choice((13, 14, 14, 15, 16))
        style = rng.randrange(4)
        if style == 0:
            text = f"{lo}-{hi}K·{months}薪"
        elif style == 1:
            text = f"{_k(lo / 10)}-{_k(hi / 10)}万/月"
        elif style == 2:
            text = f"{lo}k-{hi}k"
        else:
            text = f"{lo}-{hi}K"
        return Pay(text, "CNY", lo * 1000, hi * 1000, "MONTH")
    if region == "us":
        lo, hi = round(lo / 5) * 5, round(hi / 5) * 5
        style = rng.randrange(3)
        if style == 0:
            text = f"${_money(lo * 1000)} - ${_money(hi * 1000)} a year"
        elif style == 1:
            text = f"${lo}K–${hi}K + equity"
        else:
            text = f"USD {_money(lo * 1000)} - {_money(hi * 1000)} per year"
        return Pay(text, "USD", lo * 1000, hi * 1000, "YEAR")
    if region == "uk":
        lo, hi = round(lo), round(hi)
        text = (f"£{_money(lo * 1000)} - £{_money(hi * 1000)} per year" if rng.random() < 0.6
                else f"£{lo}k-£{hi}k + share options")
        return Pay(text, "GBP", lo * 1000, hi * 1000, "YEAR")
    if region == "de":
        lo, hi = round(lo), round(hi)
        style = rng.randrange(3)
        if style == 0:
            text = f"€{_money(lo * 1000)} - €{_money(hi * 1000)}"
        elif style == 1:
            text = f"EUR {lo}-{hi}k brutto p.a."
        else:
            return Pay(f"€{_money(lo * 1000)}", "EUR", lo * 1000, lo * 1000, "YEAR")
        return Pay(text, "EUR", lo * 1000, hi * 1000, "YEAR")
    if region == "sg":
        lo, hi = round(lo * 2) / 2, round(hi * 2) / 2
        text = (f"SGD {_money(lo * 1000)} - {_money(hi * 1000)} per month" if rng.random() < 0.5
                else f"S${_k(lo)}k–{_k(hi)}k/month")
        return Pay(text, "SGD", lo * 1000, hi * 1000, "MONTH")
    lo, hi = round(lo), round(hi)
    text = (f"HKD {lo}k-{hi}k/month" if rng.random() < 0.5
            else f"HK${_money(lo * 1000)} - {_money(hi * 1000)} monthly")
    return Pay(text, "HKD", lo * 1000, hi * 1000, "MONTH")


def _intern_pay(rng: random.Random, pay_class: str, region: str) -> Pay:
    if region == "cn":
        lo, hi = {"ml": (300, 500), "eng": (200, 300)}.get(pay_class, (150, 220))
        text = f"{lo}-{hi}元/天" if rng.random() < 0.7 else f"{lo}-{hi}/天"
        return Pay(text, "CNY", lo, hi, "DAY")
    if region == "us":
        lo, hi = (50, 65) if pay_class == "ml" else (40, 55)
        return Pay(f"${lo} - ${hi} an hour", "USD", lo, hi, "HOUR")
    if region == "uk":
        return Pay("£2,800 per month", "GBP", 2800, 2800, "MONTH")
    if region == "de":
        return Pay("€2,000 / month", "EUR", 2000, 2000, "MONTH")
    if region == "sg":
        return Pay("SGD 2,500 - 3,500 per month", "SGD", 2500, 3500, "MONTH")
    return Pay("HKD 15k-18k/month", "HKD", 15000, 18000, "MONTH")


def _campus_pay(rng: random.Random, pay_class: str, region: str) -> Pay:
    if region == "cn":
        roll = rng.random()
        if roll < 0.4:
            return Pay("面议")
        if roll < 0.7:
            lo, hi = (30, 45) if pay_class == "ml" else (20, 30)
            return Pay(f"{lo}-{hi}K·15薪", "CNY", lo * 1000, hi * 1000, "MONTH")
        lo, hi = (50, 80) if pay_class == "ml" else (30, 45)
        return Pay(f"年薪{lo}-{hi}万", "CNY", lo * 10000, hi * 10000, "YEAR")
    if region == "us":
        return Pay("$130,000 - $150,000 a year", "USD", 130000, 150000, "YEAR")
    if region == "uk":
        return Pay("£45,000 - £55,000 per year", "GBP", 45000, 55000, "YEAR")
    if region == "de":
        return Pay("€55,000 - €62,000", "EUR", 55000, 62000, "YEAR")
    if region == "sg":
        return Pay("SGD 5,500 - 7,000 per month", "SGD", 5500, 7000, "MONTH")
    return Pay("HKD 28k-35k/month", "HKD", 28000, 35000, "MONTH")


def _contract_pay(rng: random.Random, region: str) -> Pay:
    if region == "us":
        lo = rng.choice((80, 90, 95))
        return Pay(f"${lo} - ${lo + 25} an hour", "USD", lo, lo + 25, "HOUR")
    if region == "uk":
        return Pay("£600 per day (outside IR35)", "GBP", 600, 600, "DAY")
    return Pay("€650/day", "EUR", 650, 650, "DAY")

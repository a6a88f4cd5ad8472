"""Salary parsing: cases modelled on the shapes found in Chinese and English boards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.models import Salary
from jobpipe.normalize.salary import KNOWN_CURRENCIES, PERIODS, annualize, parse_salary

# (text, context currency, min, max, currency, period, months_per_year)
CASES = [
    ("15-25K·14薪", "CNY", 15000, 25000, "CNY", "month", 14),
    ("15k-25k", "CNY", 15000, 25000, "CNY", "month", None),
    ("1-1.5万/月", None, 10000, 15000, "CNY", "month", None),
    ("0.8-1.2万/月", None, 8000, 12000, "CNY", "month", None),
    ("20-40万/年", None, 200000, 400000, "CNY", "year", None),
    ("200-300元/天", None, 200, 300, "CNY", "day", None),
    ("6千-8千", "CNY", 6000, 8000, "CNY", "month", None),
    ("8千-1.2万", "CNY", 8000, 12000, "CNY", "month", None),
    ("1万5-2万", None, 15000, 20000, "CNY", "month", None),       # a spoken tenth after the unit
    ("1万5千-2万", None, 15000, 20000, "CNY", "month", None),
    ("月薪1万5以上", None, 15000, None, "CNY", "month", None),
    ("8千5", "CNY", 8500, 8500, "CNY", "month", None),
    ("1万 5天工作", None, 10000, 10000, "CNY", "month", None),      # a count after a space is no tenth
    ("25k以上", "CNY", 25000, None, "CNY", "month", None),
    ("3千以下", "CNY", None, 3000, "CNY", "month", None),
    ("30万以上/年", None, 300000, None, "CNY", "year", None),
    ("$120,000 - $150,000 a year", None, 120000, 150000, "USD", "year", None),
    ("$53K-$91K (Glassdoor est.)", None, 53000, 91000, "USD", "year", None),
    ("Employer Provided Salary:$90K-$110K", None, 90000, 110000, "USD", "year", None),
    ("$21-$34 Per Hour(Glassdoor est.)", None, 21, 34, "USD", "hour", None),
    ("£40k", None, 40000, 40000, "GBP", "year", None),
    ("€55,000", None, 55000, 55000, "EUR", "year", None),
    ("HKD 40-60K/month", None, 40000, 60000, "HKD", "month", None),
    ("30K+ HKD", None, 30000, None, "HKD", "month", None),
    ("3000-6000U/月", None, 3000, 6000, "USDT", "month", None),
    ("2000-4000 USDT / month", None, 2000, 4000, "USDT", "month", None),
    ("4000-7000 USD", None, 4000, 7000, "USD", "month", None),
    ("20k-35k RMB or equivalently paid in USDT", None, 20000, 35000, "CNY", "month", None),
    ("25-40k x 15薪 RMB", None, 25000, 40000, "CNY", "month", 15),
    ("月薪 20-30K * 13", None, 20000, 30000, "CNY", "month", 13),
    ("18K-30K 13个月", "CNY", 18000, 30000, "CNY", "month", 13),
    ("月薪25K～40K / 13～16薪", None, 25000, 40000, "CNY", "month", 13),
    ("总包 50w ~ 120w", None, 500000, 1200000, "CNY", "year", None),
    ("1.2-1.8w", None, 12000, 18000, "CNY", "month", None),
    ("Gross 1.1-1.4M RMB", None, 1100000, 1400000, "CNY", "year", None),
    ("60-150 RMB/时", None, 60, 150, "CNY", "hour", None),
    ("$800 - $1,000 per week", None, 41600, 52000, "USD", "year", None),
    ("SGD 6,500 – 9,000 monthly", None, 6500, 9000, "SGD", "month", None),
    ("年薪 40万-70万 RMB", None, 400000, 700000, "CNY", "year", None),
    ("45w-60w年包", None, 450000, 600000, "CNY", "year", None),
    ("月薪40000-60000人民币", None, 40000, 60000, "CNY", "month", None),
    ("up to 2000 USD per month", None, None, 2000, "USD", "month", None),
    ("薪酬8000U以内", None, None, 8000, "USDT", "month", None),
    ("35-50*16薪", None, 35000, 50000, "CNY", "month", 16),
    # Currencies beyond the Chinese and US boards (Comeet, Workday and Eightfold sites post them)
    ("₪35,000 - ₪45,000 per month", None, 35000, 45000, "ILS", "month", None),
    ("ILS 35,000 - 45,000 per month", None, 35000, 45000, "ILS", "month", None),
    ("₹12,00,000 - ₹18,00,000 a year", None, 1200000, 1800000, "INR", "year", None),
    ("12-18 LPA", None, 1200000, 1800000, "INR", "year", None),
    ("INR 8 lakhs - 12 lakhs per annum", None, 800000, 1200000, "INR", "year", None),
    ("CHF 120,000 - 140,000", None, 120000, 140000, "CHF", "year", None),
    ("R$ 8,000 - R$ 12,000 per month", None, 8000, 12000, "BRL", "month", None),
    ("NZ$90,000-$110,000", None, 90000, 110000, "NZD", "year", None),
    ("₩50,000,000", None, 50000000, 50000000, "KRW", "year", None),
    ("PLN 15,000 - 20,000 monthly", None, 15000, 20000, "PLN", "month", None),
    ("PHP developer: $120,000 - $150,000 a year", None, 120000, 150000, "USD", "year", None),
    ("₺40.000 - ₺60.000 aylık", None, 40000, 60000, "TRY", "month", None),      # dots as thousands
    ("€ 55.000 per year", None, 55000, 55000, "EUR", "year", None),
    ("1.200.000 INR a year", None, 1200000, 1200000, "INR", "year", None),
    ("1.500万/年", None, 15000, 15000, "CNY", "year", None),                       # with a unit: a decimal point
]


@pytest.mark.parametrize("text,ctx,lo,hi,currency,period,months", CASES)
def test_parse_salary_cases(text, ctx, lo, hi, currency, period, months):
    s = parse_salary(text, context_currency=ctx)
    assert s is not None, text
    assert (s.min, s.max, s.currency, s.period, s.months_per_year) == (lo, hi, currency, period, months)


@pytest.mark.parametrize(("text", "expected"), [
    ("INR 15 lakhs", (1_500_000, 1_500_000, "INR", "year")),     # lakhs are a year's, not a month's
    ("15 lakh per annum", (1_500_000, 1_500_000, "INR", "year")),
    ("1.2 crore", (12_000_000, 12_000_000, "INR", "year")),
    ("₹ 6.5 L", (650_000, 650_000, "INR", "year")),                # was 6 an hour
    ("Rs 12L", (1_200_000, 1_200_000, "INR", "year")),
    ("Rs. 50,000 per month", (50_000, 50_000, "INR", "month")),
])
def test_indian_numbering_and_the_rupee(text, expected):
    s = parse_salary(text)
    assert (s.min, s.max, s.currency, s.period) == expected


@pytest.mark.parametrize("text", ["面议", "薪资面议", "Negotiable", "薪资open，不卡涨幅", "提供有竞争力的薪资", "薪资可谈", "competitive"])
def test_negotiable_without_amounts(text):
    s = parse_salary(text)
    assert s is not None and s.negotiable and s.min is None and s.max is None


def test_negotiable_with_amounts_keeps_both():
    s = parse_salary("20-30k（优秀者可面议）", context_currency="CNY")
    assert (s.min, s.max, s.negotiable) == (20000, 30000, True)


@pytest.mark.parametrize("text", ["2.3-5年", "3-5年经验", "5+ years", "9am-6pm", "GMT+8", "0.1% – 0.5%", "", "   ", None])
def test_not_a_salary(text):
    s = parse_salary(text)
    assert s is None or (s.min is None and s.max is None)


def test_min_greater_than_max_rejected_when_ambiguous():
    assert parse_salary("50-20K", context_currency="CNY") is None


def test_min_greater_than_max_fixed_when_unit_typo_is_unambiguous():
    s = parse_salary("月薪：$6,000k ~ $10,000")
    assert (s.min, s.max, s.currency, s.period) == (6000, 10000, "USD", "month")


def test_bare_amount_uses_context_currency():
    assert parse_salary("20-30k", context_currency="SGD").currency == "SGD"
    assert parse_salary("20-30k").currency is None
    assert parse_salary("20-30k 每月").currency == "CNY"   # Chinese text with k/万 and no other hint


@pytest.mark.parametrize("structured,expected", [
    ({"@type": "MonetaryAmount", "currency": "AUD",
      "value": {"@type": "QuantitativeValue", "minValue": 130000, "maxValue": 160000, "unitText": "YEAR"}},
     (130000, 160000, "AUD", "year")),
    ({"@type": "MonetaryAmount", "currency": "USD", "value": {"@type": "QuantitativeValue", "value": 45, "unitText": "HOUR"}},
     (45, 45, "USD", "hour")),
    ({"@type": "MonetaryAmount", "currency": "CNY", "value": "20k-40k"}, (20000, 40000, "CNY", "month")),
    ({"@type": "MonetaryAmount", "currency": "USD", "value": 95000}, (95000, 95000, "USD", "year")),
    ({"currency": "USD", "interval": "per-year-salary", "min": 100000, "max": 140000}, (100000, 140000, "USD", "year")),
    ({"min": 4000, "max": 5500, "period": "month", "currency": "EUR"}, (4000, 5500, "EUR", "month")),
    ({"salaryRange": {"min": 60, "max": 80, "currency": "GBP", "interval": "per-hour-wage"}}, (60, 80, "GBP", "hour")),
    ({"compensationTierSummary": "$150K – $190K"}, (150000, 190000, "USD", "year")),
])
def test_structured(structured, expected):
    s = parse_salary(None, structured)
    assert (s.min, s.max, s.currency, s.period) == expected


def test_structured_wins_over_text_and_empty_structure_falls_back():
    s = parse_salary("10-20k", {"min": 30000, "max": 40000, "currency": "CNY", "period": "month"})
    assert (s.min, s.max) == (30000, 40000)
    s = parse_salary("10-20k", {"currency": "CNY"}, context_currency="CNY")
    assert (s.min, s.max) == (10000, 20000)


def test_structured_min_above_max_rejected():
    assert parse_salary(None, {"min": 5000, "max": 100, "currency": "USD", "period": "month"}) is None


@pytest.mark.parametrize("salary,expected", [
    (Salary(10000, 20000, "CNY", "month", 14), (140000, 280000)),
    (Salary(10000, 20000, "CNY", "month"), (120000, 240000)),
    (Salary(200, 300, "CNY", "day"), (50000, 75000)),
    (Salary(20, 30, "USD", "hour"), (41600, 62400)),
    (Salary(90000, None, "USD", "year"), (90000, None)),
    (Salary(), (None, None)),
])
def test_annualize(salary, expected):
    assert annualize(salary) == expected


@settings(max_examples=120, deadline=None)
@given(st.text(max_size=60))
def test_any_text_never_crashes_and_is_consistent(text):
    s = parse_salary(text, context_currency="CNY")
    _check_invariants(s)


_salaryish = st.builds(
    lambda a, b, unit, sep, suffix: f"{a}{unit}{sep}{b}{unit}{suffix}",
    st.one_of(st.integers(0, 999999), st.floats(0, 9999, allow_nan=False).map(lambda f: round(f, 2))),
    st.one_of(st.integers(0, 999999), st.floats(0, 9999, allow_nan=False).map(lambda f: round(f, 2))),
    st.sampled_from(["", "k", "K", "万", "千", "w", "M"]),
    st.sampled_from(["-", "~", "～", " - ", "至", " to "]),
    st.sampled_from(["", "/月", "/年", "/天", " per hour", " USD", "U/月", " RMB", "·14薪", "以上", " a year"]),
)


@settings(max_examples=120, deadline=None)
@given(_salaryish)
def test_salary_shaped_text_is_consistent(text):
    _check_invariants(parse_salary(text))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.sampled_from(["min", "max", "currency", "period", "interval", "value", "minValue", "maxValue", "unitText"]),
                       st.one_of(st.none(), st.integers(-10, 10**7), st.floats(allow_nan=True), st.text(max_size=12),
                                 st.dictionaries(st.sampled_from(["minValue", "maxValue", "value", "unitText"]),
                                                 st.one_of(st.integers(-5, 10**6), st.text(max_size=8)), max_size=3)),
                       max_size=6))
def test_any_structure_never_crashes(obj):
    _check_invariants(parse_salary(None, obj))


def _check_invariants(s: Salary | None) -> None:
    if s is None:
        return
    for v in (s.min, s.max):
        assert v is None or v > 0
    if s.min is not None and s.max is not None:
        assert s.min <= s.max
    assert s.currency is None or s.currency in KNOWN_CURRENCIES
    if s.min is not None or s.max is not None:
        assert s.period in PERIODS
    assert s.months_per_year is None or 1 <= s.months_per_year <= 24


def test_ashby_compensation_components():
    comp = {"compensationTierSummary": "$150K – $190K • Offers Equity",
            "summaryComponents": [{"compensationType": "EquityPercentage", "minValue": 0.1, "maxValue": 0.5},
                                  {"compensationType": "Salary", "interval": "1 YEAR", "currencyCode": "USD",
                                   "minValue": 150000, "maxValue": 190000}]}
    s = parse_salary(None, {"compensation": comp})
    assert (s.min, s.max, s.currency, s.period) == (150000, 190000, "USD", "year")


def test_repeated_salary_text_gives_equal_but_independent_results():
    first = parse_salary("15-25K·14薪", context_currency="CNY")
    assert (first.min, first.max, first.currency, first.period, first.months_per_year) == (15000, 25000, "CNY", "month", 14)
    first.min = -1   # a caller editing its Salary must not change what the next posting gets
    again = parse_salary("15-25K·14薪", context_currency="CNY")
    assert again is not first and again.min == 15000
    # the context currency is part of what is remembered
    assert parse_salary("15-25K", context_currency="CNY").currency == "CNY"
    assert parse_salary("15-25K", context_currency="USD").currency == "USD"


def test_every_currency_the_parser_names_is_known_to_the_schema():
    from jobpipe.normalize.salary import _CURRENCY_OF_GROUP

    assert set(_CURRENCY_OF_GROUP.values()) <= KNOWN_CURRENCIES


# A structured range that does not name its period: the size guess reads $50-65 as a month's pay.
@pytest.mark.parametrize(("label", "period"), [
    ("Hourly rate", "hour"), ("Daily rate", "day"), ("Annual base salary", "year"), ("Base pay", "month"),
])
def test_a_structured_range_without_a_period_takes_the_one_its_label_states(label, period):
    salary = parse_salary(label, {"min": 50, "max": 65, "currency": "USD", "period": None})
    assert (salary.min, salary.max, salary.currency, salary.period) == (50, 65, "USD", period)


def test_a_period_the_structured_salary_states_is_not_replaced_by_its_label():
    salary = parse_salary("Hourly rate", {"min": 50, "max": 65, "currency": "USD", "unitText": "MONTH"})
    assert salary.period == "month"

from dataclasses import replace
from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from jobpipe.hashing import EMBEDDING_FIELDS, content_hash, embedding_text, record_hash
from jobpipe.models import NormalizedPosting, Salary

BASE = NormalizedPosting(
    source="acme-gh", external_id="42", title="后端开发工程师 (Go)", company="Acme", cities=["Shenzhen", "Beijing"],
    job_type="full_time", skills=["Kubernetes", "Go", "大模型"], description_text="负责服务端开发。",
    url="https://acme.example/jobs/42", posted_at=datetime(2026, 11, 1, tzinfo=timezone.utc),
    salary=Salary(min=15000.0, max=25000.0, currency="CNY", period="month", months_per_year=14),
)


def test_content_hash_ignores_list_order_but_not_list_content():
    shuffled = replace(BASE, cities=["Beijing", "Shenzhen"], skills=["大模型", "Go", "Kubernetes"])
    assert content_hash(shuffled) == content_hash(BASE)
    assert content_hash(replace(BASE, skills=["Go", "Kubernetes"])) != content_hash(BASE)


def test_fields_outside_the_embedding_text_do_not_change_content_hash():
    moved = replace(BASE, url="https://acme.example/new/42", posted_at=datetime(2026, 11, 20, tzinfo=timezone.utc),
                    salary=Salary(min=18000.0, max=30000.0, currency="CNY", period="month"))
    assert content_hash(moved) == content_hash(BASE)
    assert record_hash(moved) != record_hash(BASE)      # ...but the row is updated


def test_every_embedding_field_changes_content_hash():
    changes = {"title": "前端工程师", "company": "Other", "cities": ["Shanghai"], "job_type": "intern",
               "remote": "remote", "skills": ["React"], "description_text": "负责前端开发。"}
    assert set(changes) == set(EMBEDDING_FIELDS)
    for name, value in changes.items():
        assert content_hash(replace(BASE, **{name: value})) != content_hash(BASE), name


def test_hashes_do_not_depend_on_raw_or_fetch_ids():
    other_fetch = replace(BASE, raw_id=7, fetch_id=9, content_hash="stale")
    assert record_hash(other_fetch) == record_hash(BASE)
    assert content_hash(other_fetch) == content_hash(BASE)


def test_embedding_text_puts_title_first_and_bounds_description():
    long = replace(BASE, description_text="x" * 10_000)
    text = embedding_text(long)
    assert text.startswith(BASE.title) and "Go" in text and len(text) < 2_000


def test_record_hash_has_one_form_per_number_and_instant():
    from datetime import timedelta

    as_int = replace(BASE, salary=Salary(min=15000, max=25000, currency="CNY", period="month", months_per_year=14))
    assert record_hash(as_int) == record_hash(BASE)          # 15000 == 15000.0 (e.g. after a JSON round trip)
    shanghai = timezone(timedelta(hours=8))
    same_instant = replace(BASE, posted_at=datetime(2026, 11, 1, 8, tzinfo=shanghai))
    assert record_hash(same_instant) == record_hash(BASE)   # timestamptz stores the instant only
    assert record_hash(replace(BASE, posted_at=datetime(2026, 11, 1, 9, tzinfo=shanghai))) != record_hash(BASE)
    assert record_hash(replace(BASE, salary=replace(BASE.salary, negotiable=True))) != record_hash(BASE)
    assert record_hash(replace(BASE, location_raw="")) != record_hash(replace(BASE, location_raw=None))


def test_content_hash_fields_cannot_run_into_each_other():
    assert content_hash(replace(BASE, title="ab", company="c")) != content_hash(replace(BASE, title="a", company="bc"))
    assert content_hash(replace(BASE, company=None)) != content_hash(replace(BASE, company=""))
    assert content_hash(replace(BASE, skills=["Go Kubernetes"])) != content_hash(replace(BASE, skills=["Go", "Kubernetes"]))
    assert content_hash(replace(BASE, skills=[])) != content_hash(replace(BASE, skills=[""]))


def _as_normalized(posting: NormalizedPosting) -> NormalizedPosting:
    return replace(posting, content_hash=content_hash(posting))


def test_listing_digest_sees_every_recorded_field_and_order():
    from datetime import timedelta

    from jobpipe.hashing import RECORD_ONLY_FIELDS, listing_digest

    base = _as_normalized(BASE)
    other = _as_normalized(replace(BASE, external_id="43"))
    assert listing_digest([base, other]) == listing_digest([_as_normalized(BASE), other])
    assert listing_digest([other, base]) != listing_digest([base, other])   # order: only a miss, never wrong
    changes = {"source": "other", "external_id": "41", "location_raw": "深圳", "country": "CN", "seniority": "senior",
               "salary": Salary(min=15000.0, max=26000.0, currency="CNY", period="month", months_per_year=14),
               "salary_annual_min": 1.0, "salary_annual_max": 2.0, "experience_min": 1.0, "experience_max": 3.0,
               "degree": "bachelor", "language": "zh", "url": "https://acme.example/jobs/42?x",
               "posted_at": datetime(2026, 11, 2, tzinfo=timezone.utc), "valid_through": datetime(2027, 1, 1),
               "field_origins": {"remote": "title"}, "notes": ["salary left out: ..."]}
    assert set(changes) == set(RECORD_ONLY_FIELDS)
    for name, value in changes.items():
        assert listing_digest([replace(base, **{name: value})]) != listing_digest([base]), name
    assert listing_digest([replace(base, content_hash="other")]) != listing_digest([base])
    # The same instant in another UTC offset is the same row, as record_hash has it.
    eight = replace(base, posted_at=BASE.posted_at.astimezone(timezone(timedelta(hours=8))))
    assert listing_digest([eight]) == listing_digest([base])
    naive = replace(base, posted_at=BASE.posted_at.replace(tzinfo=None))
    assert listing_digest([naive]) != listing_digest([base])


def test_listing_digest_sees_a_change_in_any_chunk():
    from jobpipe.hashing import LISTING_CHUNK, listing_digest

    base = _as_normalized(BASE)
    listing = [replace(base, external_id=str(i)) for i in range(2 * LISTING_CHUNK + LISTING_CHUNK // 2)]
    digest = listing_digest(listing)
    assert digest is not None and listing_digest([replace(p) for p in listing]) == digest
    later = datetime(2026, 11, 3, tzinfo=timezone.utc)
    for i in (0, LISTING_CHUNK - 1, LISTING_CHUNK, len(listing) - 1):   # both sides of a chunk boundary, the last
        for change in ({"url": "https://acme.example/other"}, {"posted_at": later}, {"posted_at": None},
                       {"valid_through": later}, {"salary": Salary(min=1.0)}, {"content_hash": "other"}):
            changed = listing.copy()
            changed[i] = replace(listing[i], **change)
            assert listing_digest(changed) != digest, (i, change)
        missing = listing.copy()
        missing[i] = replace(listing[i], content_hash="")
        assert listing_digest(missing) is None, i
    edge = LISTING_CHUNK - 1   # two postings swapped across a chunk boundary
    swapped = [*listing[:edge], listing[edge + 1], listing[edge], *listing[edge + 2:]]
    assert listing_digest(swapped) != digest
    assert listing_digest(listing[:-1]) != digest
    assert listing_digest(listing[:LISTING_CHUNK]) != listing_digest(listing[:LISTING_CHUNK + 1])


def test_listing_digest_declines_what_it_cannot_vouch_for():
    from decimal import Decimal

    from jobpipe.hashing import listing_digest

    assert listing_digest([BASE]) is None                     # no content hash yet: it would be computed
    assert listing_digest([_as_normalized(replace(BASE, experience_min=Decimal("1.5")))]) is None


@settings(max_examples=200, deadline=None)
@given(
    url=st.sampled_from([None, "https://a.example/1", "https://a.example/2"]),
    salary_min=st.sampled_from([None, 1, 1.0, 2.5, True]),
    period=st.sampled_from([None, "month", "year"]),
    offset=st.sampled_from([0, 8, -5]),
    day=st.sampled_from([1, 2]),
    degree=st.sampled_from([None, "", "bachelor"]),
)
def test_equal_listing_digests_mean_equal_record_hashes(url, salary_min, period, offset, day, degree):
    from datetime import timedelta

    from jobpipe.hashing import listing_digest

    def posting(**values):
        return _as_normalized(replace(BASE, **values))

    one = posting(url=url, salary=Salary(min=salary_min, period=period), degree=degree,
                  posted_at=datetime(2026, 11, day, tzinfo=timezone(timedelta(hours=offset))))
    for other in (posting(), posting(url=url), posting(salary=Salary(min=salary_min, period=period), url=url,
                                                       degree=degree, posted_at=one.posted_at)):
        if listing_digest([one]) == listing_digest([other]):
            assert record_hash(one) == record_hash(other)


def test_listing_digest_declines_dates_that_are_not_datetimes():
    from datetime import date

    from jobpipe.hashing import listing_digest

    for odd in ("", "2026-11-01", date(2026, 11, 1), 0):
        assert listing_digest([_as_normalized(replace(BASE, posted_at=odd))]) is None, odd

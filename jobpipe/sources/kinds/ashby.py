"""Ashby posting API, with compensation; unlisted jobs are skipped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote, urlsplit

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, dig, expect, join_parts, json_body, unique, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``board``: the job board name (jobs.ashbyhq.com/<board>)."""

    ident: ClassVar[str | None] = "board"
    kind: Literal["ashby"]
    board: Text
    base_url: Url = "https://api.ashbyhq.com"


def listing_url(config: Config) -> str:
    return f"{config.base_url}/posting-api/job-board/{quote(config.board, safe='')}?includeCompensation=true"


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    company = session.spec(Config).company_name

    def parse(response: Response) -> PageOutput:
        jobs = expect(json_body(response), "jobs", response, "a 'jobs' list")
        listed = [job for job in jobs if not (isinstance(job, dict) and job.get("isListed", True) is False)]
        postings, bad = session.postings_of(listed, response.url, "id", payload=lambda job: with_company(job, company),
                                            url=lambda job: as_text(job.get("jobUrl")))
        return PageOutput(postings, quarantined=bad)

    yield from session.page(listing_url(session.spec(Config)), parse).postings


def _salary_component(compensation: Any) -> dict[str, Any] | None:
    components = (compensation or {}).get("summaryComponents") or []
    for tier in (compensation or {}).get("compensationTiers") or []:
        components = components or (tier or {}).get("components") or []
    for c in components:
        if isinstance(c, dict) and str(c.get("compensationType", "")).lower() == "salary":
            return {"min": c.get("minValue"), "max": c.get("maxValue"), "currency": c.get("currencyCode"),
                    "period": c.get("interval")}
    return None


def extract(payload: dict[str, Any]) -> PostingFields:
    location = as_text(payload.get("location"))
    secondary = [as_text(s.get("location")) for s in payload.get("secondaryLocations") or [] if isinstance(s, dict)]
    compensation = payload.get("compensation")
    remote = as_text(payload.get("workplaceType")) or ("Remote" if payload.get("isRemote") else None)
    extra: dict[str, Any] = {}
    address = dig(payload, "address", "postalAddress")
    if isinstance(address, dict):
        extra["address"] = join_parts(address.get("addressLocality"), address.get("addressRegion"),
                                      address.get("addressCountry"))
    if payload.get("team"):
        extra["team"] = payload["team"]
    job_url = as_text(payload.get("jobUrl"))
    if job_url:
        slug = urlsplit(job_url).path.strip("/").split("/")[0]
        if slug:
            extra["company_slug"] = slug
    return PostingFields(
        title=as_text(payload.get("title")),
        company=as_text(payload.get("_company")),
        location=location,
        locations=unique(secondary, exclude=location),
        remote_hint=remote,
        salary=_salary_component(compensation) if isinstance(compensation, dict) else None,
        salary_text=(as_text(dig(compensation, "scrapeableCompensationSalarySummary"))
                     or as_text(dig(compensation, "compensationTierSummary"))),
        employment_type=as_text(payload.get("employmentType")),
        description=as_text(payload.get("descriptionHtml")) or as_text(payload.get("descriptionPlain")),
        url=job_url,
        posted_at=payload.get("publishedAt"),
        department=as_text(payload.get("department")),
        extra=extra,
    )

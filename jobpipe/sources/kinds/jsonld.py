"""Career pages with schema.org JobPosting JSON-LD: crawl a listing (or a sitemap), extract
every JobPosting, store each JobPosting object as its payload."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
from bs4 import BeautifulSoup, Tag
from lxml import etree

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, join_parts, unique
from jobpipe.sources.kinds.crawl import crawl
from jobpipe.sources.ldjson import decode_html, find_job_postings, identifier_of, json_ld_blocks
from jobpipe.sources.options import Count, Regex, Selector, SourceConfig, Url
from jobpipe.sources.result import PageOutput, Quarantined
from jobpipe.sources.session import SourceSession


class Config(SourceConfig):
    """``start_url``: the listing page, or a sitemap (URL ending in .xml); ``follow``: links to
    follow from listing pages (substring or regular expression); ``next_page``: CSS selector of
    the next-page link (rel=next is always followed); ``max_pages`` per run."""

    kind: Literal["jsonld"]
    start_url: Url
    follow: Regex | None = None
    next_page: Selector | None = None
    max_pages: Count = 500


_NEXT_TEXTS = {"next", "next page", "next »", "next ›", "›", "»", "下一页", "下一頁", "下页", "older"}
_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def link_matcher(pattern: str | None) -> Any:
    """``follow`` matches a URL when it is a substring of it, or a regex found in it."""
    if not pattern:
        return lambda url: False
    regex = re.compile(pattern)
    return lambda url: pattern in url or regex.search(url) is not None


def _http(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https")


def page_links(response: Response, text: str, follow: Any, next_selector: str | None) -> tuple[list[str], list[str]]:
    """(links matching ``follow``, next-page links) of an HTML page, absolute, in page order."""
    try:
        doc = lxml.html.document_fromstring(text)
    except (etree.ParserError, ValueError):
        return [], []
    doc.make_links_absolute(response.url, handle_failures="discard")
    page = urldefrag(response.url)[0]
    links: list[str] = []
    nexts: list[str] = []
    for element in doc.iter("a", "link"):
        href = element.get("href")
        if not href:
            continue
        href = urldefrag(href.strip())[0]
        if not _http(href) or href == page:
            continue
        rel = (element.get("rel") or "").lower().split()
        classes = (element.get("class") or "").lower().split()
        label = " ".join((element.text_content() if element.tag == "a" else "").split()).lower()
        is_next = ("next" in rel or "next" in classes or any(c in ("next-page", "pagination-next", "pager-next") for c in classes)
                   or label in _NEXT_TEXTS or (element.get("aria-label") or "").strip().lower() in ("next", "next page"))
        if is_next:
            if href not in nexts:
                nexts.append(href)
        elif element.tag == "a" and follow(href) and href not in links:
            links.append(href)
    if next_selector:
        for el in BeautifulSoup(text, "lxml").select(next_selector):
            href = el.get("href")
            if not href:
                anchor = el.find("a", href=True)
                href = anchor.get("href") if isinstance(anchor, Tag) else None
            if href:
                absolute = urldefrag(urljoin(response.url, str(href)))[0]
                if _http(absolute) and absolute not in nexts and absolute != page:
                    nexts.append(absolute)
    return links, nexts


def postings_on_page(session: SourceSession, url: str, text: str) -> tuple[list[RawPosting], list[Quarantined]]:
    """The page's JobPostings, and its broken JSON-LD blocks that look like one (quarantined
    whole, so the other postings of the page still load)."""
    blocks, broken = json_ld_blocks(text)
    bad = [Quarantined(f"{url} JSON-LD block", f"a JobPosting block that cannot be parsed ({error})", body)
           for body, error in broken if "jobposting" in body.lower()]
    if len(broken) > len(bad):
        session.warn(f"{url}: {len(broken) - len(bad)} JSON-LD block(s) could not be parsed (no JobPosting in them)")
    found = find_job_postings(blocks)
    out = []
    for index, posting in enumerate(found):
        ident = identifier_of(posting)
        if ident is None:
            ident = url if len(found) == 1 else f"{url}#{index + 1}"
        out.append(session.posting(ident, posting, as_text(posting.get("url")) if _is_url(posting.get("url")) else url))
    return out, bad


def _is_url(value: Any) -> bool:
    return isinstance(value, str) and _http(value)


def _sitemap(session: SourceSession, follow: Any) -> Any:
    def parse(response: Response) -> PageOutput:
        try:
            root = etree.fromstring(response.content, parser=etree.XMLParser(resolve_entities=False, no_network=True,
                                                                                 recover=True))
        except etree.XMLSyntaxError as exc:
            raise PayloadError(f"GET {response.url}: sitemap is not XML ({exc})") from None
        if root is None:
            raise PayloadError(f"GET {response.url}: empty sitemap")
        locs = [(el.text or "").strip() for el in root.iter(f"{_SITEMAP_NS}loc", "loc")]
        locs = [u for u in locs if _http(u)]
        if etree.QName(root).localname == "sitemapindex":
            return PageOutput(next_links=tuple(dict.fromkeys(locs)))
        matching = [u for u in dict.fromkeys(locs) if follow(u)] if session.spec(Config).follow else list(dict.fromkeys(locs))
        return PageOutput(links=tuple(matching))
    return parse


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    follow = link_matcher(config.follow)
    next_selector = config.next_page

    def parse_listing(response: Response) -> PageOutput:
        text = decode_html(response.content, response.encoding)
        links, nexts = page_links(response, text, follow, next_selector)
        postings, bad = postings_on_page(session, response.url, text)
        return PageOutput(tuple(postings), tuple(links), tuple(nexts), tuple(bad))

    def parse_detail(response: Response) -> PageOutput:
        text = decode_html(response.content, response.encoding)
        postings, bad = postings_on_page(session, _requested(response), text)
        return PageOutput(tuple(postings), quarantined=tuple(bad))

    start = config.start_url
    listing_parser = _sitemap(session, follow) if urlsplit(start).path.lower().endswith(".xml") else parse_listing
    yield from crawl(session, start, config.max_pages, listing_parser, parse_detail)


def _requested(response: Response) -> str:
    # External ids fall back to the URL: keep the one we asked for, stable across redirects.
    return response.requested_url or response.url


# ---------------------------------------------------------------- extraction
def _name(value: Any) -> str | None:
    if isinstance(value, dict):
        return as_text(value.get("name")) or as_text(value.get("@id"))
    return as_text(value)


def _place_text(place: Any) -> str | None:
    if isinstance(place, str):
        return as_text(place)
    if not isinstance(place, dict):
        return None
    address = place.get("address")
    if isinstance(address, list):
        address = address[0] if address else None
    if isinstance(address, dict):
        text = join_parts(address.get("addressLocality"), address.get("addressRegion"), _name(address.get("addressCountry")))
        if text:
            return text
        return as_text(address.get("streetAddress")) or as_text(place.get("name"))
    return as_text(address) or as_text(place.get("name"))


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _salary(posting: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    value = posting.get("baseSalary")
    if value is None:
        value = posting.get("estimatedSalary")
    if isinstance(value, list):
        value = value[0] if value else None
    currency = posting.get("salaryCurrency")
    if isinstance(value, dict):
        salary = dict(value)
        if currency and not salary.get("currency"):
            salary["currency"] = currency
        return salary, None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"@type": "MonetaryAmount", "value": value, "currency": currency}, None
    return None, as_text(value)


def _requirement_text(value: Any, *keys: str) -> str | None:
    if isinstance(value, dict):
        for key in keys:
            if value.get(key) not in (None, ""):
                found = value[key]
                return f"{found} months" if key == "monthsOfExperience" else as_text(found) or _name(found)
        return as_text(value.get("description")) or _name(value)
    if isinstance(value, list):
        texts = [t for t in (_requirement_text(v, *keys) for v in value) if t]
        return "; ".join(texts) or None
    return as_text(value)


def extract(payload: dict[str, Any]) -> PostingFields:
    places = [_place_text(p) for p in _as_list(payload.get("jobLocation"))]
    applicant = [_name(a) for a in _as_list(payload.get("applicantLocationRequirements"))]
    all_places = unique(places + applicant)
    location = all_places[0] if all_places else None
    salary, salary_text = _salary(payload)
    location_type = payload.get("jobLocationType")
    employment = payload.get("employmentType")
    if isinstance(employment, list):
        employment = [str(e) for e in employment if e not in (None, "")] or None
    extra: dict[str, Any] = {}
    for key in ("identifier", "industry", "occupationalCategory", "directApply", "dateModified", "workHours"):
        if payload.get(key) not in (None, "", []):
            extra[key] = payload[key]
    if applicant:
        extra["applicant_locations"] = [a for a in applicant if a]
    return PostingFields(
        title=as_text(payload.get("title")) or as_text(payload.get("name")),
        company=_name(payload.get("hiringOrganization")),
        location=location,
        locations=all_places[1:],
        remote_hint=" ".join(str(t) for t in _as_list(location_type)) or None,
        salary=salary,
        salary_text=salary_text,
        employment_type=employment if isinstance(employment, list) else as_text(employment),
        description=as_text(payload.get("description")),
        url=as_text(payload.get("url")) if _is_url(payload.get("url")) else None,
        posted_at=payload.get("datePosted"),
        valid_through=payload.get("validThrough"),
        department=_name(payload.get("department")) if payload.get("department") else None,
        experience_text=_requirement_text(payload.get("experienceRequirements"), "monthsOfExperience"),
        degree_text=_requirement_text(payload.get("educationRequirements"), "credentialCategory"),
        extra=extra,
    )

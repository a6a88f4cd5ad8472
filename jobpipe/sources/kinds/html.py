"""Career pages without JSON-LD, read through CSS selectors from the sources file:
listing page -> item links -> detail page fields, following ``next_page``.

The payload is what the selectors found (text, or HTML for ``description``), plus the
page URL: re-extraction never needs the page again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Literal
from urllib.parse import urldefrag, urljoin, urlsplit

from bs4 import BeautifulSoup, Tag
from pydantic import PlainValidator

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text
from jobpipe.sources.kinds.crawl import crawl
from jobpipe.sources.ldjson import decode_html
from jobpipe.sources.options import POSTING_FIELD_NAMES, Count, Selector, SourceConfig, Url, check_selector, problem
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


def _selectors(value: Any) -> dict[str, dict[str, Any]]:
    """``{field: selector}`` or ``{field: {selector, attr, html, all}}``, in the long form."""
    if not isinstance(value, dict) or not value:
        raise problem("expected a mapping of field name -> CSS selector")
    fields: dict[str, dict[str, Any]] = {}
    for field_name, spec in value.items():
        key = f"fields.{field_name}"
        if isinstance(spec, str):
            spec = {"selector": spec}
        if not isinstance(spec, dict) or "selector" not in spec:
            raise problem("expected a CSS selector, or {selector: ..., attr: ..., html: true|false}", key)
        extra = set(spec) - {"selector", "attr", "html", "all"}
        if extra:
            raise problem(f"unknown key {sorted(extra)[0]!r} (allowed: selector, attr, html, all)", key)
        fields[str(field_name)] = {
            "selector": check_selector(spec["selector"], key),
            "attr": spec.get("attr"),
            "html": bool(spec.get("html", field_name == "description")),
            "all": bool(spec.get("all", field_name in ("location", "locations"))),
        }
    if "title" not in fields:
        raise problem("missing: a detail page needs at least a title selector", "fields.title")
    return fields


class Config(SourceConfig):
    """``start_url``: the first listing page; ``item_links``: CSS selector of links to detail
    pages; ``next_page``: CSS selector of the next listing page link; ``fields``: posting field
    -> CSS selector on the detail page; ``max_pages`` per run."""

    kind: Literal["html"]
    start_url: Url
    item_links: Selector
    next_page: Selector | None = None
    fields: Annotated[dict[str, dict[str, Any]], PlainValidator(_selectors)]
    max_pages: Count = 500


def _soup(response: Response) -> BeautifulSoup:
    return BeautifulSoup(decode_html(response.content, response.encoding), "lxml")


def _href(element: Tag) -> str | None:
    href = element.get("href")
    if not href:
        inner = element.find("a", href=True)
        href = inner.get("href") if isinstance(inner, Tag) else None
    return str(href).strip() if href else None


def _absolute(links: list[str | None], base: str) -> list[str]:
    out: list[str] = []
    for href in links:
        if not href:
            continue
        url = urldefrag(urljoin(base, href))[0]
        if urlsplit(url).scheme in ("http", "https") and url not in out:
            out.append(url)
    return out


def _value(element: Tag, spec: dict[str, Any]) -> str | None:
    if spec.get("attr"):
        value = element.get(spec["attr"])
        return " ".join(value) if isinstance(value, list) else (str(value) if value is not None else None)
    if spec.get("html"):
        return element.decode_contents().strip() or None
    return " ".join(element.get_text(" ", strip=True).split()) or None


def select_fields(soup: BeautifulSoup, fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Field -> text (or HTML / attribute); a list when the field collects ``all`` matches."""
    out: dict[str, Any] = {}
    for name, spec in fields.items():
        matches = soup.select(spec["selector"])
        values = [v for v in (_value(m, spec) for m in matches) if v]
        if spec.get("all"):
            out[name] = values[0] if len(values) == 1 else (values or None)
        else:
            out[name] = values[0] if values else None
    return out


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)

    def parse_listing(response: Response) -> PageOutput:
        soup = _soup(response)
        links = _absolute([_href(el) for el in soup.select(config.item_links)], response.url)
        nexts = _absolute([_href(el) for el in soup.select(config.next_page)], response.url) if config.next_page else []
        return PageOutput(links=tuple(links), next_links=tuple(u for u in nexts if u != response.url))

    def parse_detail(response: Response) -> PageOutput:
        url = response.requested_url or response.url
        payload = {"url": url, **select_fields(_soup(response), config.fields)}
        if response.url != url:
            payload["final_url"] = response.url
        ident = as_text(payload.get("external_id")) or url
        return PageOutput((session.posting(ident, payload, url),))

    yield from crawl(session, config.start_url, config.max_pages, parse_listing, parse_detail)


_RENAMED = {"salary": "salary_text"}


def extract(payload: dict[str, Any]) -> PostingFields:
    fields = PostingFields()
    for key, value in payload.items():
        if key in ("external_id", "final_url"):
            continue
        target = _RENAMED.get(key, key)
        if target == "locations":
            fields.locations = value if isinstance(value, list) else ([value] if value else [])
        elif target == "location" and isinstance(value, list):
            fields.location = value[0] if value else None
            fields.locations = [v for v in value[1:] if v]
        elif target in POSTING_FIELD_NAMES or target == "salary_text":
            if target == "salary" and not isinstance(value, dict):
                fields.salary_text = value
            else:
                setattr(fields, target, value)
        else:
            fields.extra[key] = value
    return fields

"""Personio XML feed. Each ``<position>`` becomes a dict (element -> text; repeated or
nested elements -> lists), which is what gets stored and extracted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal
from urllib.parse import quote

from lxml import etree

from jobpipe.models import PostingFields, RawPosting
from jobpipe.sources.errors import PayloadError
from jobpipe.sources.http import Response
from jobpipe.sources.kinds._common import as_text, unique, with_company
from jobpipe.sources.options import ApiConfig, Text, Url
from jobpipe.sources.result import PageOutput
from jobpipe.sources.session import SourceSession


class Config(ApiConfig):
    """``company``: the company subdomain (<company>.jobs.personio.de); ``language`` of the feed."""

    ident: ClassVar[str | None] = "company"
    kind: Literal["personio"]
    company: Text
    base_url: Url = "https://{company}.jobs.personio.de"
    language: Text = "en"


def element_to_value(element: etree._Element) -> Any:
    """Leaf -> its text; element with children -> dict, a tag repeated (or a plural wrapper) -> list."""
    children = [c for c in element if isinstance(c.tag, str)]
    if not children:
        return (element.text or "").strip() or None
    tags = [c.tag for c in children]
    if len(set(tags)) == 1 and (len(tags) > 1 or element.tag.lower() in (tags[0].lower() + "s", "additional" + tags[0].lower() + "s")):
        return [element_to_value(c) for c in children]
    out: dict[str, Any] = {}
    for child in children:
        value = element_to_value(child)
        if child.tag in out:
            if not isinstance(out[child.tag], list):
                out[child.tag] = [out[child.tag]]
            out[child.tag].append(value)
        else:
            out[child.tag] = value
    return out


def fetch(session: SourceSession) -> Iterator[RawPosting]:
    config = session.spec(Config)
    company = config.company_name
    base = config.base_url

    def parse(response: Response) -> PageOutput:
        try:
            root = etree.fromstring(response.content, parser=etree.XMLParser(resolve_entities=False, no_network=True,
                                                                                 huge_tree=False, recover=True))
        except etree.XMLSyntaxError as exc:
            raise PayloadError(f"GET {response.url}: not XML ({exc})") from None
        if root is None:
            raise PayloadError(f"GET {response.url}: empty XML document")
        items = [element_to_value(position) for position in root.iter("position")]
        postings, bad = session.postings_of(items, response.url, "id", payload=lambda d: with_company(d, company),
                                            url=lambda d: f"{base}/job/{quote(str(d['id']), safe='')}")
        return PageOutput(postings, quarantined=bad)

    yield from session.page(f"{base}/xml?language={quote(config.language, safe='')}", parse).postings


def _descriptions(value: Any) -> str | None:
    items = value if isinstance(value, list) else ([value] if isinstance(value, dict) else [])
    parts = []
    for item in items:
        if isinstance(item, dict) and item.get("value"):
            parts.append(f"<h3>{item.get('name') or ''}</h3>{item['value']}")
    return "".join(parts) or None


def extract(payload: dict[str, Any]) -> PostingFields:
    office = as_text(payload.get("office"))
    more = payload.get("additionalOffices")
    more = more if isinstance(more, list) else ([more.get("office")] if isinstance(more, dict) else [])
    types = [t for t in (as_text(payload.get("employmentType")), as_text(payload.get("schedule"))) if t]
    return PostingFields(
        title=as_text(payload.get("name")),
        company=as_text(payload.get("subcompany")) or as_text(payload.get("_company")),
        location=office,
        locations=unique([as_text(o) for o in more], exclude=office),
        employment_type=types if len(types) > 1 else (types[0] if types else None),
        description=_descriptions(payload.get("jobDescriptions")),
        posted_at=payload.get("createdAt"),
        department=as_text(payload.get("department")),
        seniority=as_text(payload.get("seniority")),
        experience_text=as_text(payload.get("yearsOfExperience")),
        extra={k: payload[k] for k in ("recruitingCategory", "occupation", "occupationCategory") if payload.get(k)},
    )

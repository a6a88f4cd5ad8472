"""Demo openings written as employer career sites: paginated listing pages linking to job
pages that carry schema.org ``JobPosting`` JSON-LD, in the variants real sites use
(plain object, ``@graph``, top-level array, two postings on one page, a trailing comma)."""

from __future__ import annotations

import json
from html import escape
from typing import Any

from jobpipe.demo.companies import CITIES, Company
from jobpipe.demo.compose import Opening
from jobpipe.demo.describe import description_html
from jobpipe.demo.render_boards import local_iso, location_text

PAGE_SIZE = 10
_COUNTRY_NAMES = {"US": "United States", "GB": "United Kingdom", "DE": "Germany", "CN": "中国",
                  "SG": "Singapore", "HK": "Hong Kong"}
_EMEA = ["Germany", "United Kingdom", "Netherlands", "France", "Spain", "Poland"]


def job_path(slug: str, job_id: str) -> str:
    return f"/careers/{slug}/jobs/{job_id}.html"


def listing_path(slug: str, page: int) -> str:
    return f"/careers/{slug}/" if page == 1 else f"/careers/{slug}/page/{page}/"


def canonical_url(slug: str, path: str) -> str:
    """Absolute URLs inside pages use the employer's own (fictional) domain, never the demo
    server's address, so payloads are identical whatever port the server runs on."""
    return f"https://{slug}.example{path}"


def _employment_type(o: Opening, company: Company) -> str | list[str]:
    if o.job_type == "contract":
        return ["CONTRACTOR", "TEMPORARY"]
    if company.slug == "yunzhan":   # this site writes employment types in Chinese
        return {"full_time": "全职", "intern": "实习", "campus": "校招"}[o.job_type]
    if o.job_type == "intern":
        return ["INTERN", "PART_TIME"] if company.slug == "luming" else "INTERN"
    if o.job_type == "campus":
        return ["FULL_TIME"]
    return ["FULL_TIME"] if company.site_style == "graph" else "FULL_TIME"


def _base_salary(o: Opening, company: Company) -> Any:
    pay = o.pay
    if pay is None:
        return None
    if pay.currency is None:                     # 面议: only words
        return {"@type": "MonetaryAmount", "currency": "CNY", "value": pay.text}
    if o.lang == "zh" and company.slug == "xinglan":
        return pay.text                          # baseSalary as bare text
    structured = o.lang == "en" or (company.slug in ("shiguang", "qinghe") and pay.max is not None
                                     and "薪" not in pay.text and "年薪" not in pay.text)
    if not structured:
        return {"@type": "MonetaryAmount", "currency": pay.currency, "value": pay.text}
    if pay.max is None or pay.max == pay.min:
        value: dict[str, Any] = {"@type": "QuantitativeValue", "value": pay.min, "unitText": pay.unit}
    else:
        value = {"@type": "QuantitativeValue", "minValue": pay.min, "maxValue": pay.max, "unitText": pay.unit}
    return {"@type": "MonetaryAmount", "currency": pay.currency, "value": value}


def _place(key: str, lang: str) -> dict[str, Any]:
    c = CITIES[key]
    locality = c.zh if lang == "zh" and c.country == "CN" else c.locality
    return {"@type": "Place", "address": {"@type": "PostalAddress", "addressLocality": locality,
                                          "addressRegion": c.region, "addressCountry": c.country}}


def job_posting(o: Opening, company: Company, page_path: str) -> dict[str, Any]:
    """The schema.org JobPosting object for one opening."""
    city = o.city()
    if "relative_date" in o.quirks:
        date_posted = "3天前"
    elif o.lang == "zh":
        date_posted = o.posted.date().isoformat()
    else:
        date_posted = local_iso(o.posted, city)
    ld: dict[str, Any] = {
        "@type": "JobPosting",
        "title": o.title,
        "description": description_html(o),
        "identifier": {"@type": "PropertyValue", "name": o.company_name, "value": o.ids["site"]},
        "datePosted": date_posted,
    }
    if o.valid_through:
        ld["validThrough"] = f"{o.valid_through.isoformat()}T23:59:59{city.tz}"
    ld["employmentType"] = _employment_type(o, company)
    ld["hiringOrganization"] = {"@type": "Organization", "name": o.company_name,
                                "sameAs": f"https://{company.slug}.example/",
                                "logo": f"https://{company.slug}.example/static/logo.png"}
    if o.remote:
        ld["jobLocationType"] = "TELECOMMUTE"
        if city.country == "US":
            ld["applicantLocationRequirements"] = {"@type": "Country", "name": "United States"}
        elif city.country == "CN":
            ld["applicantLocationRequirements"] = {"@type": "Country", "name": "中国"}
        else:
            ld["applicantLocationRequirements"] = [{"@type": "Country", "name": n} for n in _EMEA]
    else:
        places = [_place(k, o.lang) for k in o.cities]
        ld["jobLocation"] = places[0] if len(places) == 1 else places
    salary = _base_salary(o, company)
    if salary is not None:
        ld["baseSalary"] = salary
    ld["industry"] = company.voices[o.lang].domain if o.lang in company.voices else company.voices[company.lang].domain
    ld["occupationalCategory"] = o.department
    ld["directApply"] = True
    ld["url"] = canonical_url(company.slug, page_path)
    return ld


def _ld_block(postings: list[dict[str, Any]], company: Company, title: str, page_path: str) -> Any:
    if company.site_style == "graph":
        org_id = f"https://{company.slug}.example/#organization"
        for p in postings:
            p["hiringOrganization"] = {"@id": org_id, "@type": "Organization", "name": p["hiringOrganization"]["name"]}
        return {"@context": "https://schema.org", "@graph": [
            {"@type": "Organization", "@id": org_id, "name": company.name, "url": f"https://{company.slug}.example/"},
            {"@type": "WebPage", "@id": canonical_url(company.slug, page_path), "name": title,
             "isPartOf": {"@id": f"https://{company.slug}.example/#website"}},
            *postings,
        ]}
    if company.site_style == "array":
        crumbs = {"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
            {"@type": "ListItem", "position": 1, "name": "Careers", "item": canonical_url(company.slug, listing_path(company.slug, 1))},
            {"@type": "ListItem", "position": 2, "name": title},
        ]}
        return [crumbs, *({"@context": "https://schema.org", **p} for p in postings)]
    if len(postings) == 1:
        return {"@context": "https://schema.org/", **postings[0]}
    return [{"@context": "https://schema.org/", **p} for p in postings]


def _script(data: Any, trailing_comma: bool) -> str:
    text = json.dumps(data, ensure_ascii=False, indent=2).replace("</", "<\\/")
    if trailing_comma:
        cut = text.rstrip().rfind("\n")
        text = text[:cut] + "," + text[cut:]
    return f'<script type="application/ld+json">\n{text}\n</script>'


def _page(lang: str, title: str, head: str, body: str) -> str:
    html_lang = "zh-CN" if lang == "zh" else "en"
    return (f'<!DOCTYPE html>\n<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _display_title(o: Opening) -> str:
    if "html_entities" in o.quirks and o.lang == "en":
        return o.title  # this title already carries entities: the site wrote it that way
    return escape(o.title)


def job_page(company: Company, page_id: str, openings: list[Opening]) -> str:
    path = job_path(company.slug, page_id)
    postings = []
    for i, o in enumerate(openings):
        ld = job_posting(o, company, path)
        if i:  # further postings on a shared page are anchors within it
            ld["url"] = canonical_url(company.slug, f"{path}#{o.ids['site']}")
        postings.append(ld)
    first = openings[0]
    trailing = "trailing_comma" in first.quirks
    head = (f'<meta name="description" content="{escape(first.title)} - {escape(first.company_name)}">\n'
            f'<link rel="canonical" href="{canonical_url(company.slug, path)}">\n'
            + _script(_ld_block(postings, company, first.title, path), trailing))
    zh = first.lang == "zh"
    blocks = []
    for o in openings:
        salary = o.pay.text if o.pay else ("面议" if zh else "")
        blocks.append(
            f'<article class="job" id="{escape(o.ids["site"])}">\n<h1>{_display_title(o)}</h1>\n'
            f'<p class="meta"><span class="city">{escape(location_text(o))}</span>'
            + (f' · <span class="salary">{escape(salary)}</span>' if salary else "")
            + f'</p>\n<div class="jd">{description_html(o)}</div>\n'
            f'<a class="apply" href="{canonical_url(company.slug, "/apply/" + o.ids["site"])}">'
            f'{"立即投递" if zh else "Apply now"}</a>\n</article>')
    back = f'<p><a href="{listing_path(company.slug, 1)}">{"返回职位列表" if zh else "All open roles"}</a></p>'
    return _page(first.lang, f"{first.title} - {first.company_name}", head, "\n".join([back, *blocks]))


def listing_page(company: Company, lang: str, page: int, pages: int, items: list[tuple[str, Opening]]) -> str:
    zh = lang == "zh"
    name = company.voices[lang].name if lang in company.voices else company.name
    head_links = [f'<link rel="canonical" href="{canonical_url(company.slug, listing_path(company.slug, page))}">']
    nav = []
    if page > 1:
        prev = listing_path(company.slug, page - 1)
        head_links.append(f'<link rel="prev" href="{prev}">')
        nav.append(f'<a rel="prev" class="prev" href="{prev}">{"上一页" if zh else "Previous"}</a>')
    nav.append(f'<span class="page">{f"第 {page} / {pages} 页" if zh else f"Page {page} of {pages}"}</span>')
    if page < pages:
        nxt = listing_path(company.slug, page + 1)
        head_links.append(f'<link rel="next" href="{nxt}">')
        nav.append(f'<a rel="next" class="next" href="{nxt}">{"下一页" if zh else "Next"}</a>')
    rows = []
    for page_id, o in items:
        salary = o.pay.text if o.pay else ""
        rows.append(f'<li class="job-item"><a class="job-link" href="{job_path(company.slug, page_id)}">'
                    f"{_display_title(o)}</a> <span class=\"city\">{escape(location_text(o))}</span>"
                    + (f' <span class="salary">{escape(salary)}</span>' if salary else "")
                    + f' <span class="dept">{escape(o.department)}</span></li>')
    title = f"{name} - {'加入我们' if zh else 'Careers'}"
    body = (f'<header><a href="/">{"首页" if zh else "Home"}</a></header>\n<h1>{escape(title)}</h1>\n'
            f'<ul class="jobs">\n' + "\n".join(rows) + "\n</ul>\n"
            f'<nav class="pagination">{" ".join(nav)}</nav>')
    return _page(lang, title if page == 1 else f"{title} ({page})", "\n".join(head_links), body)


def render_site(company: Company, openings: list[Opening]) -> dict[str, str]:
    """Every file of one career site, keyed by path relative to the data directory."""
    mine = sorted((o for o in openings if o.company == company.slug and "jsonld" in o.channels),
                  key=lambda o: (o.posted, o.ids["site"]), reverse=True)
    lang = company.lang
    # Pages: one per opening, except a shared page that carries two openings.
    pages: list[tuple[str, list[Opening]]] = []
    second = next((o for o in mine if "shared_page_second" in o.quirks), None)
    for o in mine:
        if o is second:
            continue
        group = [o, second] if "shared_page" in o.quirks and second is not None else [o]
        pages.append((o.ids["site"], group))
    files: dict[str, str] = {}
    for page_id, group in pages:
        files[f"careers/{company.slug}/jobs/{page_id}.html"] = job_page(company, page_id, group)
    listing = [(page_id, group[0]) for page_id, group in pages]
    n_pages = max(1, -(-len(listing) // PAGE_SIZE))
    for page in range(1, n_pages + 1):
        chunk = listing[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
        rel = listing_path(company.slug, page).strip("/") + "/index.html"
        files[rel] = listing_page(company, lang, page, n_pages, chunk)
    return files

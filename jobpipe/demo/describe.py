"""A demo opening's description as HTML and as plain text, in the house style of its company.

Employers format job descriptions differently (headings, numbered lines, bullet lists), and
extractors must cope with all of them, so each company gets one consistent style.
"""

from __future__ import annotations

from html import escape

from jobpipe.demo.compose import Opening

_EN_HEADINGS = {
    0: ("What you'll do", "What we're looking for", "Nice to have"),
    1: ("Responsibilities", "Requirements", "Bonus points"),
    2: ("In this role you will", "You might be a fit if you have", "Even better if you have"),
}
_ZH_HEADINGS = {
    0: ("岗位职责：", "任职要求：", "加分项："),
    1: ("工作内容", "职位要求", "优先条件"),
}
# Which style each company writes in: en heading set, or zh layout "list" | "lines".
_STYLE: dict[str, int | str] = {
    "lumenwise": 0, "quillmark": 1, "orbitkite": 2, "brightpike": 0, "haijiao": 1,
    "fernhollow": 2, "brambleway": 1,
    "qinghe": "list", "yunzhan": "lines", "shiguang": "list", "xinglan": "lines", "luming": "lines",
}


def _end_zh(items: list[str]) -> list[str]:
    """Chinese lists end items with '；' and the last with '。'."""
    if not items:
        return items
    return [*items[:-1], items[-1].rstrip("；;。") + "。"]


def sections(o: Opening) -> list[tuple[str, list[str]]]:
    """(heading, items) for duties, requirements and bonus, headed in the company's style."""
    if o.lang == "zh":
        style = _STYLE.get(o.company, "list")
        heads = _ZH_HEADINGS[0 if style == "lines" else 1]
        return [(heads[0], _end_zh(o.duties)), (heads[1], _end_zh(o.requirements)), (heads[2], _end_zh(o.bonus))]
    en_style = _STYLE.get(o.company)
    heads = _EN_HEADINGS[en_style if isinstance(en_style, int) else 0]
    return [(heads[0], o.duties), (heads[1], o.requirements), (heads[2], o.bonus)]


def _zh_lines_html(heading: str, items: list[str]) -> str:
    lines = "<br>".join(f"{i}、{escape(item, quote=False)}" for i, item in enumerate(items, 1))
    return f"<p><strong>{escape(heading, quote=False)}</strong><br>{lines}</p>"


def _list_html(heading: str, items: list[str], tag: str, level: str = "h3") -> str:
    lis = "".join(f"<li>{escape(item, quote=False)}</li>" for item in items)
    return f"<{level}>{escape(heading, quote=False)}</{level}><{tag}>{lis}</{tag}>"


def description_html(o: Opening, *, include_intro: bool = True) -> str:
    """The full description as the employer's page would show it."""
    parts: list[str] = []
    if include_intro:
        if o.lang == "zh":
            parts.append(f"<p><strong>{'关于我们' if o.company != 'xinglan' else '公司介绍'}</strong></p>")
        parts.append(f"<p>{escape(o.intro, quote=False)}</p>")
    parts.append(f"<p>{escape(o.summary, quote=False)}</p>")
    style = _STYLE.get(o.company, 0)
    for heading, items in sections(o):
        if o.lang == "zh" and style == "lines":
            parts.append(_zh_lines_html(heading, items))
        elif o.lang == "zh":
            parts.append(_list_html(heading, items, "ol", "h4"))
        else:
            parts.append(_list_html(heading, items, "ul"))
    for line in o.closing:
        parts.append(f"<p>{escape(line, quote=False)}</p>")
    html = "".join(parts)
    if "html_entities" in o.quirks and o.lang == "zh":
        # Editors that paste from Word leave &nbsp; runs and numeric entities behind.
        html = html.replace("<br>", "<br>&nbsp;&nbsp;").replace("。", "&#12290;").replace("、", "&#12289;", 3)
        html += "<p>简历投递请注明：姓名&amp;应聘岗位&amp;最快到岗时间&nbsp;&nbsp;</p>"
    return html


def description_text(o: Opening) -> str:
    """Plain-text rendering (Lever's *Plain fields)."""
    lines = [o.intro, "", o.summary, ""]
    for heading, items in sections(o):
        lines.append(heading)
        if o.lang == "zh":
            lines.extend(f"{i}、{item}" for i, item in enumerate(items, 1))
        else:
            lines.extend(f"- {item}" for item in items)
        lines.append("")
    lines.extend(o.closing)
    return "\n".join(lines)

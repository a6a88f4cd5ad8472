"""What a description states about the job itself: labelled lines and arrangement sentences.

Many boards leave the structured fields empty and write the facts into the text: rebase's template
("工作地点：杭州", "是否远程：否", "是否全职：是", "Remote or not: remote or HK"), ATS exports ("Job Type:
Full-time", "Work Location: Remote", "Schedule: Full-time"), or plain sentences ("This role can be
based remotely", "It is not a remote role", "Fridays are work-from-home days"). This module finds
those statements; the callers decide what they mean for a field.

Only statements about *this* job count: a benefits line ("home-office stipend", "onsite gym"), a
note about colleagues ("remote, interdisciplinary teams"), a science ("remote sensing") or a
degree ("full-time MBA program") says nothing, so the patterns name the job, a schedule or an
explicit label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from jobpipe.normalize.regex_guard import guarded

#: Label kinds, in the form a line writes them ("label: value" or a label heading the next line).
_LABELS: dict[str, tuple[str, ...]] = {
    "location": ("工作地点", "办公地点", "工作地址", "上班地址", "工作城市", "地点", "work location", "job location",
                 "office location", "location", "base"),
    "mode": ("是否远程", "是否支持远程", "工作方式", "办公方式", "工作形式", "remote or not", "remote work",
             "work mode", "workplace type", "workplace", "work arrangement", "remote"),
    "type": ("是否全职", "工作性质", "工作类型", "岗位类型", "职位类型", "用工类型", "full-time or not",
             "full-time position", "full time", "full-time", "job type", "employment type", "type of employment", "position type", "schedule",
             "duration", "work hours/shift", "work hours", "hours/shift", "time type", "work status", "employment status", "status", "type", "role"),
}
_KIND_OF = {label: kind for kind, labels in _LABELS.items() for label in labels}
#: Labels that may stand alone on a line, heading the value on the next one ("Work Location" /
#: "remote / HK"); the others need a colon (a line "Remote" is a value, not a label).
_HEADINGS = ("工作地点", "办公地点", "地点", "work location", "job location", "location", "job type", "employment type",
             "position type", "time type", "schedule", "work hours/shift", "status", "工作性质")
_LABEL_ALT = "|".join(re.escape(label) for label in sorted(_KIND_OF, key=len, reverse=True))
_HEADING_ALT = "|".join(re.escape(label) for label in sorted(_HEADINGS, key=len, reverse=True))
#: "label: value" (value on the same line) or a heading label alone on a line, the value on the next one.
_LABELLED = guarded(re.compile(
    rf"(?:^|\n)[ \t]*(?:[-*•·>#]+[ \t]*)?(?:(?P<label>{_LABEL_ALT})[ \t]*[:：][ \t]*(?:\n[ \t]*){{0,2}}(?P<value>[^\n]{{1,80}})"
    rf"|(?P<heading>{_HEADING_ALT})[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:[-*•·]+[ \t]*)?[:：]?[ \t]*(?P<next>[^\n:：]{{1,60}})(?=\n|$))",
    re.I,
))


_DECORATION = re.compile(r"^[^\w\u4e00-\u9fff]+")


@dataclass
class Statements:
    """Labelled lines found in a description: kind ("location", "mode", "type") -> values in order."""

    values: dict[str, list[str]] = field(default_factory=dict)

    def get(self, kind: str) -> list[str]:
        return self.values.get(kind, [])


@lru_cache(maxsize=1024)
def labelled_lines(description: str) -> Statements:
    """Every "label: value" line (or label heading followed by its value) in ``description``."""
    found = Statements()
    if not description or (":" not in description and "：" not in description and "\n" not in description):
        return found
    for m in _LABELLED.finditer(description[:20000]):
        # a leading emoji or tick ("✅ 是", "❌ 否") is decoration
        value = _DECORATION.sub("", m.group("value") or m.group("next") or "").strip(" \t-*•·：:")
        if value:
            label = (m.group("label") or m.group("heading")).lower()
            found.values.setdefault(_KIND_OF[label], []).append(value)
    return found


# ----------------------------------------------------------------------------- the work arrangement

#: What a labelled mode value means ("是否远程：可选", "Remote or not: remote or HK", "Workplace: Hybrid").
_VALUE_HYBRID = re.compile(r"hybrid|混合|部分远程|半远程|部分适合", re.I)
_VALUE_ONSITE = re.compile(r"^\s*(?:不|非|无|暂不|暂无|暂时不|no\b|not\b|none\b)|(?:^|[^\u4e00-\u9fff])否(?![\u4e00-\u9fff])|不支持|不接受|不可|无法|on-?site|in[- ]office|"
                           r"坐班|线下|驻场", re.I)
_VALUE_REMOTE = re.compile(r"^\s*(?:可|yes\b|y\b)|(?:^|[^\u4e00-\u9fff])是(?![\u4e00-\u9fff])|可选|可以|支持|接受|远程|遠程|remote|telecommut|anywhere|全远", re.I)
_VALUE_UNSURE = re.compile(r"negotiable|depends|协商|商量|面议|可谈|详谈|详聊|沟通|待定|最好|tbd|视情况|看情况", re.I)
#: "坐班优先，远程也接受": a remote option, whatever comes first.
_VALUE_ALSO_REMOTE = re.compile(r"(?:远程|remote)[^，,。;；]{0,6}(?:也|亦)(?:可|接受|行|ok)|(?:也|亦)(?:可|接受)(?:远程|remote)", re.I)


def mode_of_value(value: str) -> str | None:
    """remote/hybrid/onsite as a labelled value states it, else None ("negotiable", "it depends").

    A value naming both ("不支持远程", "深圳-是，香港-否") means what its first word says: the
    negation governs the remote word after it, and an option listed first is offered.
    """
    if _VALUE_UNSURE.search(value):
        return None
    if _VALUE_HYBRID.search(value):
        return "hybrid"
    if _VALUE_ALSO_REMOTE.search(value):
        return "remote"
    no, yes = _VALUE_ONSITE.search(value), _VALUE_REMOTE.search(value)
    if no and (not yes or no.start() <= yes.start()):
        return "onsite"
    return "remote" if yes else None


#: Sentences that state the arrangement of this job (lowercased text). Hybrid first: "not a remote
#: role" next to "Fridays are work-from-home days" is a hybrid job. A "hybrid role" counts only near
#: words of place ("a hybrid role that lets you work from home"), not as a mix of duties ("serve a
#: hybrid role in supporting sales").
_HYBRID_SENTENCES = guarded(re.compile(
    r"\bhybrid (?:work(?:ing)?|model|schedule|arrangement|option|set-?up|policy|work model)s?\b"
    r"|\bhybrid (?:role|position|job|environment)s?\b(?=[^.\n]{0,80}\b(?:home|remote|office|on[- ]?site|days?|wfh|telework|location))"
    r"|\bflexible hybrid\b|\b(?:is|are|be) hybrid\b(?=[^.\n]{0,40}\b(?:home|remote|office|days?|week))"
    r"|\b(?:[1-4]|one|two|three|four)(?: (?:or|to|-) (?:[1-4]|two|three|four))? days? (?:a|per|each|every) week (?:in|at|from|into) (?:the |our |an )?(?:office|home)\b"
    r"|\b(?:office|on-?site|in[- ]office|in the office|in-person)(?: minimum)? (?:[1-4]|one|two|three|four)(?: (?:or|to|-) (?:[1-4]|two|three|four))? days? (?:a|per|each|every) week\b"
    r"|\b(?:office|on-?site)(?: minimum)? once (?:a|per) week\b"
    r"|\bwfh (?:fridays|mondays|\d days?|one day|a day|on fridays)\b|\b(?:fridays|mondays) are (?:work[- ]from[- ]home|wfh|remote) days\b"
    r"|\bpart(?:ly|ially) remote\b|\bsome on-?site time\b|\bremote (?:\d|one|two|three) days\b"
    r"|混合办公|部分远程|半远程|每周(?:[1-4一二三四两]|几)天(?:到岗|到公司|在办公室|坐班|远程|居家)"
))
#: Softer: a perk of working from home at times. A hybrid job unless the text says fully remote.
_SOFT_HYBRID_SENTENCES = guarded(re.compile(
    r"\b(?:work[- ]from[- ]home|wfh) flexibility\b|\btelework options?\b|\bwork from home (?:on occasion|occasionally)\b"
))
#: Remote for now, on site later: the job is an on-site one.
_TEMPORARY_REMOTE = guarded(re.compile(
    r"\bremote (?:to start|initially|at first|for now|temporarily|until)\b[^.\n]{0,80}\b(?:on[- ]?site|in (?:the )?office)\b"
    r"|\b(?:100% )?remote (?:now|currently|right now)\b[^.\n]{0,80}\b(?:on[- ]?site|in (?:the )?office)\b"
    r"|\bon[- ]?site in [^.\n]{1,30} in the future\b"
))
_ONSITE_SENTENCES = guarded(re.compile(
    r"\bnot (?:a )?remote (?:role|position|job|opportunity)\b|\b(?:role|position|job) is not remote\b|\bno remote\b"
    r"|\bremote (?:work )?is not (?:possible|available|an option|offered|supported)\b"
    r"|\b(?:this|the) (?:role|position|job) (?:is|will be) (?:based )?(?:fully )?(?:on-?site|in[- ]office|in[- ]person)\b"
    r"|\b(?:on-?site|in[- ]person|in the office) (?:5|five) days\b"
    r"|\b(?:must|required to|need to|expected to|comfortable) (?:be |being |work |working )?(?:comfortable being )?(?:on-?site|in[- ]office|in the office|in[- ]person)\b"
    r"|\brequires on-?site work\b|\b(?:fully|100%) on-?site\b|\bon-?site (?:role|position|job)\b"
    r"|不接受远程|不支持远程|暂不支持远程|暂时不接受远程|非远程|暂无远程|无法远程|不可远程|不能远程|坐班|驻场"
    r"|线下(?:办公|工作|坐班)|base\s*[\u4e00-\u9fff]{1,8}\s*线下"
))
_REMOTE_SENTENCES = guarded(re.compile(
    r"\b(?:this|the) (?:role|position|job) (?:can|could|may|will) be (?:based |done |performed |worked )?(?:fully )?remote(?:ly)?\b"
    r"|\b(?:fully|100%|completely|entirely) remote\b|\bremote[- ]first\b|\bwork (?:remotely )?from anywhere\b"
    r"|\bas well as remote(?:ly)?\b|\bopen (?:to|for) remote\b|\bremote (?:role|position|job|opportunity)\b"
    r"|\bremote(?:ly)? within (?:the )?(?:us|u\.s\.|united states|uk|eu|europe|emea|canada)\b|\bus-based remote\b"
    r"|全远程|(?:可|支持|接受|可以)远程(?:办公|工作)?|远程办公|居家办公|远程工作"
))


def temporarily_remote(lower: str) -> bool:
    """Whether a (lowercased) description says the job is remote only for now ("remote to start,
    onsite in Waltham in the future"): an on-site job."""
    return bool(lower) and _TEMPORARY_REMOTE.search(lower) is not None


def stated_mode(lower: str) -> str | None:
    """The arrangement the sentences of a (lowercased) description state, else None."""
    if not lower:
        return None
    if _HYBRID_SENTENCES.search(lower):
        return "hybrid"
    if _TEMPORARY_REMOTE.search(lower):
        return "onsite"
    remote = _REMOTE_SENTENCES.search(lower) is not None
    if not remote and _SOFT_HYBRID_SENTENCES.search(lower):
        return "hybrid"
    if _ONSITE_SENTENCES.search(lower):
        return "onsite"
    return "remote" if remote else None


def states_hybrid(lower: str) -> bool:
    """Whether the text plainly states a hybrid arrangement (days in the office, a hybrid model):
    enough to correct a "remote" read from a location list."""
    return bool(lower) and _HYBRID_SENTENCES.search(lower) is not None


#: Words of a benefits line or section: remote work named there is a perk on offer ("远程办公补贴",
#: "home-office stipend", "福利：可申请居家办公"), weaker evidence than a statement about the job.
_BENEFIT_WORDS = re.compile(
    r"benefit|perk|stipend|allowance|reimburs|subsid|福利|补贴|补助|津贴|报销|待遇", re.I)
#: A heading: short, no list marker, no sentence punctuation, no "key: value".
_HEADING_LINE = re.compile(r"^\s*(?:#{1,6}\s*)?(?![-•*·]|\d{1,2}\s*[.、)）])(?![^\n]*[:：]\s*\S)[^\n.。;；,，]{1,24}[:：]?\s*$")


def remote_only_among_benefits(lower: str) -> bool:
    """Whether every remote statement of a (lowercased) description sits in a benefits line or
    under a benefits heading: then "remote" is inferred, not stated (``field_origins``)."""
    matches = list(_REMOTE_SENTENCES.finditer(lower)) if lower else []
    if not matches:
        return False
    for m in matches:
        start = lower.rfind("\n", 0, m.start()) + 1
        end = lower.find("\n", m.end())
        line = lower[start:end if end >= 0 else len(lower)]
        if _BENEFIT_WORDS.search(line):
            continue
        # the nearest heading above the line, within a few lines
        heading = None
        pos = start - 1
        for _ in range(8):
            if pos <= 0:
                break
            prev_start = lower.rfind("\n", 0, pos) + 1
            prev = lower[prev_start:pos]
            if prev.strip() and _HEADING_LINE.match(prev):
                heading = prev
                break
            pos = prev_start - 1
        if heading is None or not _BENEFIT_WORDS.search(heading):
            return False
    return True

"""A resume split into its sections (skills, experience, education ...), Chinese and English.

Resumes announce their parts with headings, on a line of their own ("EXPERIENCE", "工作经历",
"Professional Skills") or at the start of a line ("Skills * Python, SQL", "教育背景：..."), as
exported resume datasets and PDF text layers run lines together. What is before the first
heading is the header (name, title, contact line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Section kind -> its headings (matched case-insensitively, whole heading).
HEADINGS: dict[str, tuple[str, ...]] = {
    "skills": (
        "skills", "technical skills", "professional skills", "key skills", "core skills", "core competencies",
        "competencies", "skill set", "skillset", "skills summary", "skill details", "technologies", "tech stack",
        "technical expertise", "areas of expertise", "expertise", "tools", "tools and technologies",
        "technical proficiencies", "it skills", "computer skills",
        "专业技能", "技能", "技能特长", "技术栈", "掌握技能", "个人技能", "技能清单", "技术能力", "专业能力", "IT技能", "技能专长",
    ),
    "experience": (
        "experience", "work experience", "professional experience", "employment history", "work history",
        "career history", "employment", "relevant experience", "internship", "internships", "internship experience",
        "company details", "experience details", "professional background",
        "工作经历", "工作经验", "实习经历", "实习经验", "工作履历", "职业经历", "工作背景", "实践经历", "社会实践",
    ),
    "projects": (
        "projects", "project experience", "personal projects", "academic projects", "key projects", "project details",
        "selected projects", "项目经历", "项目经验", "项目", "主要项目", "科研经历", "科研项目",
    ),
    "education": (
        "education", "education details", "educational background", "academic background", "academic qualifications",
        "qualifications", "educational qualifications", "academics",
        "教育背景", "教育经历", "学历", "教育", "学习经历", "学历背景",
    ),
    "summary": (
        "summary", "profile", "professional summary", "career summary", "about me", "about", "personal profile",
        "overview", "个人简介", "自我评价", "个人评价", "自我介绍", "个人总结", "个人优势",
    ),
    "objective": (
        "objective", "career objective", "career goal", "job objective", "求职意向", "求职目标", "期望工作",
    ),
    "languages": ("languages", "language skills", "language", "语言能力", "语言", "外语能力"),
    "certifications": ("certifications", "certificates", "certification", "licenses", "证书", "资格证书", "技能证书"),
    "other": (
        "awards", "honors", "achievements", "publications", "interests", "hobbies", "references", "activities",
        "volunteer", "volunteering", "personal details", "personal information", "contact", "contact information",
        "declaration", "获奖", "获奖经历", "荣誉", "荣誉奖项", "兴趣爱好", "论文", "论文与奖项", "个人信息", "基本信息", "联系方式",
    ),
}
_BY_HEADING = {h.lower(): kind for kind, heads in HEADINGS.items() for h in heads}
_HEADINGS_RE = "|".join(sorted((re.escape(h) for h in _BY_HEADING), key=len, reverse=True))
# A heading alone on its line, with decoration: "## Skills", "EXPERIENCE:", "【工作经历】", "一、教育背景".
_HEADING_LINE = re.compile(
    r"^[\s#*•\-=_【\[(（]*(?:[一二三四五六七八九十]+[、.．]\s*|\d+[.、)]\s*)?(" + _HEADINGS_RE + r")[\s:：*】\])）\-=_]*$", re.I)
# A heading opening a line that goes on: "Skills * Python", "Education Details B.E.", "教育背景：2019-2023 ...".
_HEADING_START = re.compile(
    r"^\s*(" + _HEADINGS_RE + r")(?:\s*[:：]\s*|\s+[*•\-–]\s+|\s{2,})(?=\S)", re.I)


# Exported resumes run a heading into the previous line's last word ("...24 monthsCompany Details"):
# a Title Case heading of two or more words glued to a lowercase letter or a full stop starts a line.
_GLUED = re.compile(
    r"(?<=[a-z.)])(?=(?:" + "|".join(sorted((re.escape(h.title()) for h in _BY_HEADING if " " in h and h.isascii()),
                                            key=len, reverse=True)) + r")\b)")


@dataclass
class Section:
    kind: str          # header | skills | experience | projects | education | summary | objective | languages | ...
    heading: str
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def split_sections(text: str) -> list[Section]:
    """The resume's sections in order; the first is the ``header`` (possibly empty)."""
    sections = [Section("header", "", [])]
    for raw in _GLUED.sub("\n", text).split("\n"):
        line = raw.strip()
        m = _HEADING_LINE.match(line)
        if m and len(line) <= 40:
            sections.append(Section(_BY_HEADING[m.group(1).lower()], m.group(1), []))
            continue
        m = _HEADING_START.match(line)
        if m and len(m.group(1)) >= 4:   # "项目" / "about" need a line of their own
            sections.append(Section(_BY_HEADING[m.group(1).lower()], m.group(1), [line[m.end():].strip()]))
            continue
        sections[-1].lines.append(line)
    return sections


def heading_of(line: str) -> str | None:
    """The section kind a line alone heads ("## Skills", "【工作经历】"), else None."""
    m = _HEADING_LINE.match(line)
    return _BY_HEADING[m.group(1).lower()] if m else None


def lines_of(sections: list[Section], *kinds: str) -> list[str]:
    return [line for s in sections if s.kind in kinds for line in s.lines if line]

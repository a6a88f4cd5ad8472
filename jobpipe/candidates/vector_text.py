"""A candidate's embedding text: what its vector is computed from (and nothing personal).

Its own module because its code is part of :func:`jobpipe.candidates.parse.parser_version`:
changing what goes into the text changes the version, so every stored candidate is profiled
(and, where the text differs, embedded) again without anyone remembering a bump.
"""

from __future__ import annotations

import re

from jobpipe.candidates.models import CandidateProfile

_PLACEHOLDER = re.compile(r"\[(?:email|phone|link|handle|address|number|name|contact|personal)\]")


#: How much of the redacted resume body a candidate's vector reads. A posting's embedding text
#: keeps the head of its description (``DESCRIPTION_CHARS``): the head of a posting says what
#: the job is. A resume's head is mostly contact lines, education and a skills dump; what the
#: person did is in the work history further down, so the vector reads about two pages (a model
#: with a shorter window, such as the e5 one, cuts it to its own window; the titles and skills
#: come first so a cut keeps them).
RESUME_CHARS = 8000


def _clean(line: str) -> str:
    return " ".join(_PLACEHOLDER.sub(" ", line).split()).strip(" |,;:：-–—·•")


def embedding_text(profile: CandidateProfile) -> str:
    """What a candidate's vector is computed from: titles, skills, then the resume body.

    The one declaration of it: stored in ``candidates.embedding_text``, embedded by
    ``jobpipe.store.vectors`` and printed by ``jobpipe candidates show``. Built from the redacted
    profile only (no name, no contact detail, no placeholder either), in the shape of a posting's
    embedding text (title first, skills, then prose), so the two sides of a match are embedded alike.
    """
    titles = list(dict.fromkeys(t for t in (_clean(title) for title in (profile.current_title, profile.headline,
                                                                         *profile.target_titles) if title) if t))
    lines = []
    if titles:
        lines.append(" / ".join(titles))
    if profile.skills:
        lines.append(", ".join(profile.skills))
    body = []
    for line in profile.resume_text.splitlines():
        line = _clean(line)
        if len(line) >= 2:
            body.append(line)
    text = "\n".join(body)
    if text:
        lines.append(text[:RESUME_CHARS])
    return "\n".join(lines)

"""What a role template is: the hand-written parts a demo posting is composed from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Role:
    """One role family in one language.

    Sentences may use ``{product}``, ``{domain}`` (the company's) and ``{years}`` (from the
    level), so the same family reads differently at every employer.
    """

    key: str
    lang: str
    titles: tuple[str, ...]
    department: str
    pay: str                          # pay class: eng | ml | pm | design | data | sales | ops
    summary: tuple[str, ...]          # the opening line about the team; one is chosen
    duties: tuple[str, ...]
    requirements: tuple[str, ...]
    bonus: tuple[str, ...]
    years: tuple[int, int] = (3, 5)   # mid-level experience; senior adds to it
    intern_title: str = ""
    campus_title: str = ""


#: The variants a role plan entry may ask for ("en_ml:senior").
VARIANTS = ("", "senior", "intern", "campus", "contract")

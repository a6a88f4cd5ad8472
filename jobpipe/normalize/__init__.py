"""Normalization and validation: PostingFields from any source -> one validated NormalizedPosting schema.

See docs/normalization.md for the schema, the parsing rules and how to extend the city table and
the skill taxonomy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobpipe._lazy import lazy_exports

if TYPE_CHECKING:   # for type checkers; at run time __getattr__ imports each on first use
    from jobpipe.normalize.batch import normalize_batch
    from jobpipe.normalize.dates import parse_date
    from jobpipe.normalize.experience import parse_degree, parse_experience
    from jobpipe.normalize.job_type import parse_job_type, parse_seniority
    from jobpipe.normalize.location import (
        city_aliases,
        known_cities,
        resolve_city,
        resolve_locations,
    )
    from jobpipe.normalize.posting import normalize_posting
    from jobpipe.normalize.salary import annualize, parse_salary
    from jobpipe.normalize.schema import (
        Rejection,
        ValidationResult,
        validate_postings,
    )
    from jobpipe.normalize.serialize import posting_to_dict
    from jobpipe.normalize.skills import canonical_skill, extract_skills, skill_synonyms
    from jobpipe.normalize.store import (
        DEFAULT_REJECT_THRESHOLD,
        NormalizeCounts,
        NotNormalizedError,
        load_normalized,
        load_quarantine,
        normalize_fetch,
        reject_rates,
        sources_over_threshold,
        write_normalized,
    )
    from jobpipe.normalize.text import clean_text, detect_language

#: Imported on first use (PEP 562): any submodule import (normalize.job_type, which the CLI's flags
#: need) runs this file first, and the batch, schema and store modules pull in pandas, pandera and the
#: sources layer, over a second that `jobpipe --help` or `jobpipe db status` should not pay.
_LAZY = {
    "normalize_batch": "jobpipe.normalize.batch",
    "parse_date": "jobpipe.normalize.dates",
    "parse_degree": "jobpipe.normalize.experience", "parse_experience": "jobpipe.normalize.experience",
    "parse_job_type": "jobpipe.normalize.job_type", "parse_seniority": "jobpipe.normalize.job_type",
    "city_aliases": "jobpipe.normalize.location",
    "known_cities": "jobpipe.normalize.location",
    "resolve_city": "jobpipe.normalize.location",
    "resolve_locations": "jobpipe.normalize.location",
    "normalize_posting": "jobpipe.normalize.posting",
    "annualize": "jobpipe.normalize.salary", "parse_salary": "jobpipe.normalize.salary",
    "Rejection": "jobpipe.normalize.schema",
    "ValidationResult": "jobpipe.normalize.schema",
    "validate_postings": "jobpipe.normalize.schema",
    "posting_to_dict": "jobpipe.normalize.serialize",
    "canonical_skill": "jobpipe.normalize.skills", "extract_skills": "jobpipe.normalize.skills",
    "skill_synonyms": "jobpipe.normalize.skills",
    "DEFAULT_REJECT_THRESHOLD": "jobpipe.normalize.store",
    "NormalizeCounts": "jobpipe.normalize.store",
    "NotNormalizedError": "jobpipe.normalize.store",
    "load_normalized": "jobpipe.normalize.store",
    "load_quarantine": "jobpipe.normalize.store",
    "normalize_fetch": "jobpipe.normalize.store",
    "reject_rates": "jobpipe.normalize.store",
    "sources_over_threshold": "jobpipe.normalize.store",
    "write_normalized": "jobpipe.normalize.store",
    "clean_text": "jobpipe.normalize.text", "detect_language": "jobpipe.normalize.text",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "DEFAULT_REJECT_THRESHOLD", "NormalizeCounts", "NotNormalizedError", "normalize_fetch", "Rejection", "ValidationResult", "annualize", "canonical_skill",
    "city_aliases", "clean_text", "detect_language", "extract_skills", "known_cities", "load_normalized",
    "load_quarantine", "normalize_batch", "normalize_posting", "parse_date", "parse_degree", "parse_experience",
    "parse_job_type", "parse_salary", "parse_seniority", "posting_to_dict", "reject_rates", "resolve_city",
    "resolve_locations", "skill_synonyms", "sources_over_threshold", "validate_postings", "write_normalized",
]

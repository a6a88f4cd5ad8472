"""Normalization and validation: PostingFields from any source -> one validated NormalizedPosting schema.

See docs/normalization.md for the schema, the parsing rules and how to extend the city table and
the skill taxonomy.
"""

from jobpipe.normalize.batch import normalize_batch
from jobpipe.normalize.dates import parse_date
from jobpipe.normalize.experience import parse_degree, parse_experience
from jobpipe.normalize.job_type import parse_job_type, parse_seniority
from jobpipe.normalize.location import city_aliases, known_cities, resolve_city, resolve_locations
from jobpipe.normalize.posting import normalize_posting
from jobpipe.normalize.salary import annualize, parse_salary
from jobpipe.normalize.schema import Rejection, ValidationResult, validate_postings
from jobpipe.normalize.serialize import posting_to_dict
from jobpipe.normalize.skills import canonical_skill, extract_skills
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

__all__ = [
    "DEFAULT_REJECT_THRESHOLD", "NormalizeCounts", "NotNormalizedError", "normalize_fetch", "Rejection", "ValidationResult", "annualize", "canonical_skill",
    "city_aliases", "clean_text", "detect_language", "extract_skills", "known_cities", "load_normalized",
    "load_quarantine", "normalize_batch", "normalize_posting", "parse_date", "parse_degree", "parse_experience",
    "parse_job_type", "parse_salary", "parse_seniority", "posting_to_dict", "reject_rates", "resolve_city",
    "resolve_locations", "sources_over_threshold", "validate_postings", "write_normalized",
]

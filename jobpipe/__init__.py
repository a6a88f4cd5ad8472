"""jobpipe: the data pipeline behind job-matching agents.

Scrape postings, normalize them into one bilingual schema, upsert them idempotently into
PostgreSQL, keep their vectors fresh, and serve hybrid search to agents.
"""

from jobpipe.models import NormalizedPosting, PostingFields, RawPosting, Salary

__version__ = "0.1.0"

__all__ = ["NormalizedPosting", "PostingFields", "RawPosting", "Salary", "__version__"]

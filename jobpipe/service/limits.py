"""Bounds on what a caller may ask for.

Every bound exists to keep one request cheap and predictable (the service is shared by
agents that retry and fan out), and each is reported back in a 422 that names it. The filters'
own bounds are part of the filter spec (``jobpipe.search.types``).
"""

from jobpipe.config import Settings

MAX_QUERY_CHARS = 500
MAX_RESUME_CHARS = 20_000
MAX_TOP_K = 100
DEFAULT_TOP_K = 10
MAX_CANDIDATE_ID_CHARS = 128
#: A resume posted to ``POST /candidates``: text up to this many characters, a file up to this size.
MAX_UPLOAD_TEXT_CHARS = 60_000
MAX_UPLOAD_BYTES = 10 * 1024 * 1024
MAX_JOB_ID = 2**63 - 1
#: Request body, bytes actually received (chunked or not); more is a 413.
MAX_BODY_BYTES = 256 * 1024
#: Statement timeout for every query the service runs, milliseconds.
DEFAULT_STATEMENT_TIMEOUT_MS: int = Settings.model_fields["statement_timeout_ms"].default
#: How much of a description the MCP ``get_job`` tool returns.
MCP_DESCRIPTION_CHARS = 6000

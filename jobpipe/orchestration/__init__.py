"""Dagster wiring. Thin: every asset calls one stage of ``jobpipe.pipeline`` and reports its result."""

#: Who answers for the assets (the UI shows it on every asset).
OWNERS = ["team:jobpipe"]

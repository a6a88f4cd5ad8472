"""Dagster wiring. Thin: every asset calls a plain function from the core packages."""

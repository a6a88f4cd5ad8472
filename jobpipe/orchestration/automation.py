"""When the unpartitioned stages run by themselves (evaluated by the ``jobpipe_automation`` sensor).

Not ``AutomationCondition.eager()``: eager waits until *no* upstream partition is missing, and
with one partition per source per day since the start date, some always are. What we want is
"an upstream partition landed since we last ran, and none is still running", so the nightly
source runs are followed by one embedding/index/matching pass once they have all finished.
"""

from __future__ import annotations

from dagster import AutomationCondition

from jobpipe.config import get_settings

AFTER_UPSTREAM_LANDS = (
    AutomationCondition.any_deps_updated().since_last_handled()
    & ~AutomationCondition.any_deps_in_progress()
    & ~AutomationCondition.in_progress()
).with_label("after_upstream_lands")


def nightly() -> AutomationCondition:
    """Root assets (resumes) refresh on the same cron as the nightly ingestion."""
    settings = get_settings()
    return AutomationCondition.on_cron(settings.schedule_cron, settings.schedule_timezone)

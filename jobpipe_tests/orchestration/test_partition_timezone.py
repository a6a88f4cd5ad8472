"""Daily partitions are days of the schedule's time zone (JOBPIPE_SCHEDULE_TIMEZONE).

The nightly tick asks for its own local day; were the partitions UTC days, a zone whose date
is ahead of (or behind) UTC would ask for a partition that does not exist yet. The zone is read
when the definitions load, so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

from jobpipe.config import PROJECT_ROOT

_PROBE = """
import json
from jobpipe.orchestration.partitions import daily_partitions
from jobpipe.pipeline import partition_today
print(json.dumps({"last": daily_partitions.get_last_partition_key(), "today": partition_today().isoformat(),
                  "tz": daily_partitions.timezone}))
"""


def _zone_whose_date_is_not_utcs() -> str:
    # UTC-12 is a day behind before 12:00 UTC; UTC+14 a day ahead from 10:00 UTC.
    return "Etc/GMT+12" if datetime.now(timezone.utc).hour < 11 else "Pacific/Kiritimati"


def _probe(zone: str) -> dict[str, str]:
    env = {**os.environ, "JOBPIPE_SCHEDULE_TIMEZONE": zone}
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=PROJECT_ROOT, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_todays_partition_is_the_schedule_zones_date():
    from zoneinfo import ZoneInfo

    zone = _zone_whose_date_is_not_utcs()
    local = datetime.now(ZoneInfo(zone)).date().isoformat()
    assert local != datetime.now(timezone.utc).date().isoformat()   # the case is a discriminating one
    got = _probe(zone)
    assert got["tz"] == zone
    assert got["today"] == local            # a fetch made now belongs to the zone's day...
    assert got["last"] == local             # ...and that day's partition exists already

"""robots.txt rules per host (RFC 9309, parsed by Protego), fetched once per host per process.

Why Protego: the standard library's parser applies the first matching rule instead of the
longest one (``Disallow: /`` + ``Allow: /careers/`` refused ``/careers/jobs/1``) and ignores
the ``*`` and ``$`` wildcards (``Disallow: /*?sort=`` blocked nothing).

Why one cache per process: every source gets its own client, and several sources often live
on one host (a company's board and its career pages, a demo server); each of them asking for
robots.txt again would be a request the host did not need. Rules are kept for
``RULES_TTL`` seconds (RFC 9309 allows up to a day), failures for ``FAILURE_TTL`` only, so a
host that was down is asked again soon.

Unreachable files follow RFC 9309: a 4xx (no robots.txt) allows everything, while a 5xx or a
network failure means "assume complete disallow" -- a site that is down must not be crawled
as if it had no rules.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

#: The product token sites address jobpipe by in robots.txt (``User-agent: jobpipe``).
ROBOTS_AGENT = "jobpipe"
#: RFC 9309 section 2.5: crawlers must parse at least the first 500 KiB.
MAX_ROBOTS_BYTES = 500 * 1024
RULES_TTL = 3600.0
FAILURE_TTL = 300.0


@dataclass
class RobotsRules:
    parser: Protego | None   # None: no usable robots.txt
    allow_all: bool
    reason: str = ""         # why everything is disallowed, when it is

    def allows(self, url: str) -> bool:
        if self.allow_all:
            return True
        if self.parser is None:
            return False
        return bool(self.parser.can_fetch(url, ROBOTS_AGENT))

    def crawl_delay(self) -> float | None:
        """Seconds between requests the host asks for: ``Crawl-delay``, or ``Request-rate`` (n/s)."""
        if self.parser is None:
            return None
        delays = []
        delay = self.parser.crawl_delay(ROBOTS_AGENT)
        if delay is not None:
            delays.append(float(delay))
        rate = self.parser.request_rate(ROBOTS_AGENT)
        if rate is not None and rate.requests > 0:
            delays.append(rate.seconds / rate.requests)
        return max(delays) if delays else None

    @property
    def failed(self) -> bool:
        return not self.allow_all and self.parser is None


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def parse_robots(status: int | None, text: str, error: str | None = None) -> RobotsRules:
    """Rules from a robots.txt response (``status`` None: the request itself failed)."""
    if status is None:
        return RobotsRules(None, allow_all=False, reason=f"robots.txt unreachable ({error})")
    if 400 <= status < 500:
        return RobotsRules(None, allow_all=True)
    if status >= 500:
        return RobotsRules(None, allow_all=False, reason=f"robots.txt answered HTTP {status}")
    return RobotsRules(Protego.parse(text[:MAX_ROBOTS_BYTES]), allow_all=False)


class RobotsCache:
    """One :class:`RobotsRules` per scheme+host, loaded on first use with ``load``."""

    def __init__(self, ttl: float = RULES_TTL, failure_ttl: float = FAILURE_TTL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.failure_ttl = failure_ttl
        self._clock = clock
        self._rules: dict[str, tuple[float, RobotsRules]] = {}   # key -> (expires at, rules)
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def _fresh(self, key: str) -> RobotsRules | None:
        entry = self._rules.get(key)
        if entry is not None and entry[0] > self._clock():
            return entry[1]
        return None

    def rules_for(self, url: str, load: Callable[[str], RobotsRules]) -> RobotsRules:
        key = robots_url(url)
        with self._lock:
            rules = self._fresh(key)
            if rules is not None:
                return rules
            host_lock = self._locks.setdefault(key, threading.Lock())
        with host_lock:  # one download per host even when workers (or sources) ask at once
            with self._lock:
                rules = self._fresh(key)
            if rules is None:
                rules = load(key)
                ttl = self.failure_ttl if rules.failed else self.ttl
                with self._lock:
                    self._rules[key] = (self._clock() + ttl, rules)
        return rules

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()


_SHARED = RobotsCache()


def shared_robots_cache() -> RobotsCache:
    """The process-wide cache every :class:`PoliteClient` uses unless given its own."""
    return _SHARED

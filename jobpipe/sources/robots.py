"""robots.txt rules per host, fetched once per client and cached.

Follows RFC 9309 for unreachable files: a 4xx (no robots.txt) allows everything, while a
5xx or a network failure means "assume complete disallow" -- a site that is down must not
be crawled as if it had no rules.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

#: The product token sites address jobpipe by in robots.txt (``User-agent: jobpipe``).
ROBOTS_AGENT = "jobpipe"


@dataclass
class RobotsRules:
    parser: RobotFileParser | None   # None: no usable robots.txt
    allow_all: bool
    reason: str = ""                 # why everything is disallowed, when it is

    def allows(self, url: str) -> bool:
        if self.allow_all:
            return True
        if self.parser is None:
            return False
        return self.parser.can_fetch(ROBOTS_AGENT, url)

    def crawl_delay(self) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(ROBOTS_AGENT)
        return float(delay) if delay is not None else None


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
    parser = RobotFileParser()
    parser.parse(text.splitlines())
    return RobotsRules(parser, allow_all=False)


class RobotsCache:
    """One :class:`RobotsRules` per scheme+host, loaded on first use with ``load``."""

    def __init__(self) -> None:
        self._rules: dict[str, RobotsRules] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def rules_for(self, url: str, load: Callable[[str], RobotsRules]) -> RobotsRules:
        key = robots_url(url)
        with self._lock:
            if key in self._rules:
                return self._rules[key]
            host_lock = self._locks.setdefault(key, threading.Lock())
        with host_lock:  # one download per host even when workers ask at once
            if key not in self._rules:
                rules = load(key)
                with self._lock:
                    self._rules[key] = rules
        return self._rules[key]

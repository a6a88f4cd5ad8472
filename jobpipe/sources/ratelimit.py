"""Per-host request spacing, shared by every request a client sends.

A host gets at most ``rate`` requests per second: each request reserves the next free slot
of its host (under a lock) and sleeps outside the lock until that slot, so concurrent
workers are spaced out instead of bursting, and different hosts never wait for each other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class HostRateLimiter:
    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self._next_slot: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, host: str, rate: float) -> float:
        """Block until ``host`` may receive a request at ``rate`` req/s; return the seconds waited.

        ``rate <= 0`` means unlimited (never used for real sites: only for local tests).
        """
        interval = 1.0 / rate if rate > 0 else 0.0
        with self._lock:
            now = self._clock()
            slot = max(now, self._next_slot.get(host, now))
            self._next_slot[host] = slot + interval
        delay = slot - now
        if delay > 0:
            self._sleep(delay)
        return max(delay, 0.0)

    def defer(self, host: str, seconds: float) -> None:
        """Hold every request to ``host`` for ``seconds`` (a 429/503 ``Retry-After`` applies
        to the whole host, not just the request that received it)."""
        with self._lock:
            until = self._clock() + seconds
            if until > self._next_slot.get(host, 0.0):
                self._next_slot[host] = until

"""The one HTTP client every source kind goes through, so politeness is not optional.

What it guarantees for each request: a timeout per read and an overall deadline (connect,
TLS, headers and every body read together); at most ``rate_limit`` requests per second
per host (and no faster than the host's robots.txt ``Crawl-delay``); at most
``max_concurrency`` requests in flight; robots.txt checked (unless a source opts out);
retries with exponential backoff and jitter on connection errors, timeouts, 429 and 5xx,
honouring ``Retry-After``; conditional requests when the caller knows a validator; a cap
on the body size; at most ``max_redirects`` redirects, each hop rate-limited and checked
against robots.txt like any other request.
"""

from __future__ import annotations

import functools
import json
import logging
import random
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import certifi
import httpcore
import httpx

from jobpipe import __version__
from jobpipe.sources.errors import HttpError, ResponseTooLarge, RobotsDisallowed
from jobpipe.sources.ratelimit import HostRateLimiter
from jobpipe.sources.retry_after import retry_after_seconds
from jobpipe.sources.robots import RobotsCache, RobotsRules, parse_robots, shared_robots_cache

log = logging.getLogger("jobpipe.sources.http")

USER_AGENT = f"jobpipe/{__version__} (+https://github.com/jobpipe/jobpipe)"
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
#: Seconds one request (one attempt) may take from connect to its last body byte
#: (``JOBPIPE_FETCH_DEADLINE`` for the pipeline's fetches).
DEFAULT_DEADLINE = 120.0
_RETRY_STATUSES = frozenset({408, 425, 429, 500, 502, 503, 504})
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


@dataclass
class RequestStats:
    """Counters of one fetch (thread-safe): they land in the ``fetch_runs`` row."""

    requests: int = 0
    not_modified: int = 0
    bytes: int = 0
    retries: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, *, requests: int = 0, not_modified: int = 0, bytes: int = 0, retries: int = 0) -> None:
        with self._lock:
            self.requests += requests
            self.not_modified += not_modified
            self.bytes += bytes
            self.retries += retries


@dataclass
class Response:
    """A finished response: the body is fully read (and within the size cap)."""

    url: str                      # the final URL, after redirects
    status: int
    headers: httpx.Headers
    content: bytes
    encoding: str | None = None
    redirected_permanently: bool = False
    requested_url: str = ""       # the URL asked for, before redirects
    method: str = "GET"

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def text(self) -> str:
        return self.content.decode(self.encoding or "utf-8", errors="replace")

    @property
    def etag(self) -> str | None:
        return self.headers.get("etag")

    @property
    def last_modified(self) -> str | None:
        return self.headers.get("last-modified")


class DeadlineExceeded(httpx.TimeoutException):
    """A request did not finish within its overall deadline (a server that drips bytes)."""


# ---------------------------------------------------------------------------- the deadline
# httpx's timeouts bound each socket operation, so a server sending one byte every few
# seconds keeps a request alive forever. Every socket operation of a request (connect, TLS,
# each write and read) instead gets min(its own timeout, the time left before the request's
# deadline). The deadline lives in a thread-local: sync httpx does all of a request's I/O on
# the calling thread, and a pooled connection serves one request at a time.
_request_deadline = threading.local()


@contextmanager
def _deadline(seconds: float) -> Iterator[float]:
    previous = getattr(_request_deadline, "at", None)
    _request_deadline.at = end = time.monotonic() + seconds
    try:
        yield end
    finally:
        _request_deadline.at = previous


def _clamp(timeout: float | None, error: type[Exception]) -> float | None:
    end = getattr(_request_deadline, "at", None)
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's overall deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _clamp(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _clamp(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        tls = self._stream.start_tls(ssl_context, server_hostname, _clamp(timeout, httpcore.ConnectTimeout))
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_tcp(host, port, _clamp(timeout, httpcore.ConnectTimeout), local_address,
                                         socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        stream = self._inner.connect_unix_socket(path, _clamp(timeout, httpcore.ConnectTimeout), socket_options)
        return _DeadlineStream(stream)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _install_deadlines(client: httpx.Client) -> None:
    """Put every connection pool ``client`` built (direct and per proxy) on the deadline backend.

    httpx builds its pools itself (honouring proxy settings) without a way to pass a network
    backend; wrapping the pools' backend keeps all of that. A layout this code does not know
    (a newer httpx) fails here, loudly, rather than losing the deadline.
    """
    transports = [client._transport, *(t for t in client._mounts.values() if t is not None)]
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        if pool is None:
            continue   # a transport given by the caller (tests): not a socket transport
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            raise RuntimeError("httpcore's connection pool has no _network_backend: cannot enforce request deadlines")
        if not isinstance(backend, _DeadlineBackend):
            pool._network_backend = _DeadlineBackend(backend)


@functools.lru_cache(maxsize=1)
def _ssl_context() -> ssl.SSLContext:
    """One verified TLS context per process: loading the CA bundle costs ~0.1 s per client."""
    return ssl.create_default_context(cafile=certifi.where())


class PoliteClient:
    """A polite, thread-safe HTTP client. Use one per process (or per run) and close it.

    ``rate_limit`` is the default per-host rate (req/s); a request may pass its own (a
    source's ``rate_limit``). Tests pass a high rate and short backoffs to stay fast.
    """

    def __init__(
        self,
        *,
        rate_limit: float = 1.0,
        max_concurrency: int = 4,
        timeout: float = 30.0,
        connect_timeout: float = 10.0,
        max_retries: int = 3,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        max_retry_after: float = 300.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        deadline: float = DEFAULT_DEADLINE,
        max_redirects: int = 5,
        user_agent: str = USER_AGENT,
        respect_robots: bool = True,
        transport: httpx.BaseTransport | None = None,
        robots_cache: RobotsCache | None = None,
    ) -> None:
        self.rate_limit = rate_limit
        self.max_concurrency = max(1, max_concurrency)
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_retry_after = max_retry_after
        self.max_bytes = max_bytes
        self.deadline = deadline
        self.max_redirects = max_redirects
        self.user_agent = user_agent
        self.respect_robots = respect_robots
        self.limiter = HostRateLimiter()
        self._slots = threading.BoundedSemaphore(self.max_concurrency)
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(connect_timeout, timeout)),
            follow_redirects=False,  # done by hand: every hop is rate-limited and robots-checked
            headers={"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate"},
            limits=httpx.Limits(max_connections=self.max_concurrency * 2),
            transport=transport,
            verify=_ssl_context(),
        )
        _install_deadlines(self._http)
        self._robots = robots_cache or shared_robots_cache()  # once per host, not per source
        self._crawl_delay_warned: set[str] = set()

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ public
    def get(
        self,
        url: str,
        *,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        rate_limit: float | None = None,
        robots: bool = True,
        etag: str | None = None,
        last_modified: str | None = None,
        stats: RequestStats | None = None,
    ) -> Response:
        """GET ``url``; return the final response (2xx or 304) or raise :class:`HttpError`.

        ``etag`` / ``last_modified`` make the request conditional; a 304 comes back as a
        response with ``not_modified`` true and an empty body.
        """
        if params:
            url = str(httpx.URL(url, params=params))
        request_headers = dict(headers or {})
        if etag:
            request_headers["If-None-Match"] = etag
        if last_modified:
            request_headers["If-Modified-Since"] = last_modified
        return self._request("GET", url, request_headers, None, rate_limit, robots, stats)

    def post_json(
        self,
        url: str,
        body: Any,
        *,
        headers: dict[str, str] | None = None,
        rate_limit: float | None = None,
        robots: bool = True,
        stats: RequestStats | None = None,
    ) -> Response:
        """POST ``body`` as JSON, for search APIs that page through the request body
        (Workday). Only for reads: it is retried like a GET, so it must be idempotent."""
        request_headers = {"Content-Type": "application/json", "Accept": "application/json", **(headers or {})}
        content = json.dumps(body, separators=(",", ":")).encode()
        return self._request("POST", url, request_headers, content, rate_limit, robots, stats)

    # ------------------------------------------------------------------ internals
    def _request(self, method: str, url: str, request_headers: dict[str, str], content: bytes | None,
                 rate_limit: float | None, robots: bool, stats: RequestStats | None) -> Response:
        stats = stats or RequestStats()
        rate = self.rate_limit if rate_limit is None else rate_limit
        check_robots = robots and self.respect_robots
        current = url
        permanent = True
        for _hop in range(self.max_redirects + 1):
            if check_robots:
                rules = self._robots.rules_for(current, lambda u: self._load_robots(u, stats))
                if not rules.allows(current):
                    why = rules.reason or "disallowed by robots.txt"
                    raise RobotsDisallowed(f"{method} {current}: {why} for user agent 'jobpipe'", url=current)
                rate = self._respect_crawl_delay(current, rate, rules)
            response = self._send_with_retries(current, request_headers, rate, stats, method=method, content=content)
            if response.status in _REDIRECT_STATUSES:
                location = response.headers.get("location")
                if not location:
                    raise HttpError(f"{method} {current}: HTTP {response.status} without a Location header",
                                    url=current, status=response.status)
                permanent = permanent and response.status in (301, 308)
                current = urljoin(current, location)
                if method == "POST" and response.status in (301, 302, 303):
                    # what browsers (and httpx) do: only 307/308 repeat the POST with its body
                    method, content = "GET", None
                    request_headers = {k: v for k, v in request_headers.items() if k.lower() != "content-type"}
                continue
            response.redirected_permanently = permanent and current != url
            response.requested_url = url
            if response.redirected_permanently:
                log.warning("%s moved permanently to %s: update the sources file", url, current)
            if response.status == 304:
                stats.add(not_modified=1)
                return response
            if 200 <= response.status < 300:
                return response
            raise HttpError(f"{method} {current}: HTTP {response.status} {_reason(response.status)}",
                            url=current, status=response.status)
        raise HttpError(f"{method} {url}: more than {self.max_redirects} redirects", url=url)

    def _respect_crawl_delay(self, url: str, rate: float, rules: RobotsRules) -> float:
        delay = rules.crawl_delay()
        if delay and delay > 0 and (rate <= 0 or 1.0 / rate < delay):
            host = urlsplit(url).netloc
            if host not in self._crawl_delay_warned:
                self._crawl_delay_warned.add(host)
                log.info("%s asks for Crawl-delay %.1fs: slowing down to match", host, delay)
            return 1.0 / delay
        return rate

    def _load_robots(self, robots_url: str, stats: RequestStats) -> RobotsRules:
        try:
            response = self._send_with_retries(robots_url, {}, self.rate_limit, stats)
        except HttpError as exc:
            return parse_robots(None, "", error=str(exc))
        if response.status in _REDIRECT_STATUSES:
            location = response.headers.get("location")
            if location:
                try:
                    response = self._send_with_retries(urljoin(robots_url, location), {}, self.rate_limit, stats)
                except HttpError as exc:
                    return parse_robots(None, "", error=str(exc))
        return parse_robots(response.status, response.text)

    def _backoff(self, attempt: int) -> float:
        base = min(self.backoff_max, self.backoff_base * (2 ** attempt))
        return base / 2 + random.uniform(0, base / 2)  # "equal jitter": never zero, never in lockstep

    def _send_with_retries(self, url: str, headers: dict[str, str], rate: float, stats: RequestStats, *,
                           method: str = "GET", content: bytes | None = None) -> Response:
        host = urlsplit(url).netloc
        last_error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                stats.add(retries=1)
            self.limiter.wait(host, rate)
            try:
                with self._slots:
                    stats.add(requests=1)
                    response = self._send_once(url, headers, stats, method, content)
            except ResponseTooLarge:
                raise
            except DeadlineExceeded as exc:
                last_error = str(exc)
                wait = self._backoff(attempt)
            except httpx.TimeoutException as exc:
                last_error = f"timed out ({type(exc).__name__})"
                wait = self._backoff(attempt)
            except httpx.TransportError as exc:
                last_error = f"connection error ({type(exc).__name__}: {exc})"
                wait = self._backoff(attempt)
            except (httpx.HTTPError, httpx.InvalidURL) as exc:  # e.g. a corrupt gzip body: not worth retrying
                raise HttpError(f"{method} {url}: {type(exc).__name__}: {exc}", url=url) from None
            else:
                if response.status not in _RETRY_STATUSES:
                    return response
                last_error = f"HTTP {response.status} {_reason(response.status)}"
                hinted = retry_after_seconds(response.headers.get("retry-after"))
                wait = self._backoff(attempt) if hinted is None else hinted
                if hinted is not None and hinted > self.max_retry_after:
                    raise HttpError(f"{method} {url}: {last_error}, Retry-After {hinted:.0f}s exceeds the "
                                    f"{self.max_retry_after:.0f}s cap", url=url, status=response.status)
            if attempt < self.max_retries:
                log.info("%s %s: %s; retry %d/%d in %.2fs", method, url, last_error, attempt + 1, self.max_retries, wait)
                self.limiter.defer(host, wait)  # the whole host backs off, not just this request
        status = None
        if last_error.startswith("HTTP "):
            status = int(last_error.split()[1])
        raise HttpError(f"{method} {url}: {last_error} (after {self.max_retries + 1} attempts)", url=url, status=status)

    def _send_once(self, url: str, headers: dict[str, str], stats: RequestStats, method: str = "GET",
                   content: bytes | None = None) -> Response:
        with _deadline(self.deadline) as end:
            try:
                return self._read_response(url, headers, stats, method, content, end)
            except httpx.TimeoutException as exc:
                if time.monotonic() >= end:
                    raise DeadlineExceeded(f"no complete response within the {self.deadline:g}s deadline "
                                           "(connect and all reads together)") from exc
                raise

    def _read_response(self, url: str, headers: dict[str, str], stats: RequestStats, method: str,
                       content: bytes | None, end: float) -> Response:
        with self._http.stream(method, url, headers=headers, content=content) as raw:
            declared = raw.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > self.max_bytes:
                raise ResponseTooLarge(f"{method} {url}: response of {int(declared)} bytes exceeds the "
                                       f"{self.max_bytes}-byte cap", url=url, status=raw.status_code)
            chunks: list[bytes] = []
            size = 0
            for chunk in raw.iter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    raise ResponseTooLarge(f"{method} {url}: response exceeds the {self.max_bytes}-byte cap",
                                           url=url, status=raw.status_code)
                if time.monotonic() >= end:   # also for a caller's own transport, which has no deadline backend
                    raise httpx.ReadTimeout("the request's overall deadline passed")
                chunks.append(chunk)
            stats.add(bytes=size)
            return Response(url=url, status=raw.status_code, headers=raw.headers,
                            content=b"".join(chunks), encoding=raw.charset_encoding, method=method)


def _reason(status: int) -> str:
    try:
        return httpx.codes.get_reason_phrase(status)
    except Exception:  # pragma: no cover - unknown codes
        return ""

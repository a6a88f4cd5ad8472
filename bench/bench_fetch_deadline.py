"""Time to first byte and time to give up against a server that drips its answer.

A local server sends each response one byte every ``--interval`` seconds, so every read
finishes far inside the per-read timeout (30 s by default) and only the overall request
deadline can end the request. For the body-dripping and the header-dripping server, prints
when the first byte arrived, when the fetch gave up, and the deadline it was bounded by; a
response that drips to completion within the deadline is fetched whole.

    python bench/bench_fetch_deadline.py [--deadline 5] [--interval 0.25]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jobpipe.sources import HttpError, PoliteClient  # noqa: E402
from jobpipe.sources.http import DEFAULT_DEADLINE  # noqa: E402
from jobpipe_tests.sources.drip import DripServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deadline", type=float, default=5.0, help=f"seconds (the default is {DEFAULT_DEADLINE:g})")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between dripped bytes")
    parser.add_argument("--timeout", type=float, default=30.0, help="per-read timeout")
    args = parser.parse_args()

    server = DripServer(interval=args.interval, body_bytes=10_000,
                        steady_bytes=max(1, int(args.deadline / args.interval / 2))).start()
    print(f"drip server: one byte every {args.interval:g} s; per-read timeout {args.timeout:g} s, "
          f"deadline {args.deadline:g} s per request, no retries")
    try:
        with PoliteClient(rate_limit=1000, timeout=args.timeout, deadline=args.deadline, max_retries=0) as client:
            for path, what in [("/drip-body", "headers at once, 10,000-byte body dripped"),
                               ("/drip-headers", "status line and headers dripped, never finished"),
                               ("/steady", "a short body dripped to completion")]:
                started = time.monotonic()
                try:
                    response = client.get(server.url(path))
                    outcome = f"fetched {len(response.content)} bytes"
                except HttpError as exc:
                    outcome = "gave up: " + str(exc).split(": ", 1)[1]
                ended = time.monotonic() - started
                drip = next(d for d in reversed(server.drips) if d.path == path)
                ttfb = (drip.first_byte - started) if drip.first_byte else float("nan")
                print(f"  {path:14s} ({what}): first byte after {ttfb:.3f} s, request ended after {ended:.2f} s "
                      f"(deadline {args.deadline:g} s, {ended / args.deadline:.2f} of it), {drip.bytes_sent} bytes "
                      f"sent by the server; {outcome}")
        print(f"  without the deadline the body-dripping response would hold its request for "
              f"{10_000 * args.interval:,.0f} s (10,000 bytes x {args.interval:g} s; no read ever waits "
              f"{args.timeout:g} s)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Reads one wrk log (run with --latency) and prints a results.tsv line:
phase, connections, req/s, valid (2xx) req/s, errors %, p50 ms, p99 ms.
Errors are non-2xx responses plus socket errors. With --valid-count, prints only the number of 2xx responses."""
import re
import sys

name, connections, path = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()


def number(pattern, default=0.0):
    match = re.search(pattern, text)
    return float(match.group(1)) if match else default


def milliseconds(percentile):
    match = re.search(rf"^\s+{percentile}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not match:
        return float("nan")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


requests = number(r"(\d+) requests in")
duration_match = re.search(r"requests in ([\d.]+)(ms|s|m)", text)
duration = 0.0
if duration_match:
    value, unit = float(duration_match.group(1)), duration_match.group(2)
    duration = value / 1000 if unit == "ms" else value * 60 if unit == "m" else value
non2xx = number(r"Non-2xx or 3xx responses: (\d+)")
socket = sum(int(n) for n in re.findall(r"(?:connect|read|write|timeout) (\d+)", text))
valid = max(requests - non2xx, 0)
if "--valid-count" in sys.argv:
    print(int(valid))
    sys.exit(0)
rate = requests / duration if duration else 0.0
valid_rate = valid / duration if duration else 0.0
errors = 100.0 * (non2xx + socket) / requests if requests else 100.0
print(f"{name}\t{connections}\t{rate:.1f}\t{valid_rate:.1f}\t{errors:.2f}\t{milliseconds(50):.2f}\t{milliseconds(99):.2f}")

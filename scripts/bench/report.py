#!/usr/bin/env python3
"""Turns scripts/bench.sh's measurements into the table of docs/BENCHMARKS.md (Markdown on stdout) and a
gnuplot PNG of valid token requests per second against connections. A wrk run with more than 1 % errors
(non-2xx responses or socket errors) is marked INVALID, and its throughput is not used in a ratio."""
import argparse
import csv
import subprocess

parser = argparse.ArgumentParser()
parser.add_argument("results")
for name in ("health", "health-again", "health-loaded", "logins", "rss-start", "rss-before", "rss-after", "memory-requests", "serve-peak", "serve-anon", "serve-file",
             "demo-peak", "glewlwyd-rss", "glewlwyd-peak", "demo-start", "sdk"):
    parser.add_argument("--" + name, type=float, required=True)
parser.add_argument("--plot", required=True)
parser.add_argument("--cores", required=True)
options = parser.parse_args()

rows = list(csv.DictReader(open(options.results), delimiter="\t"))
by = {(row["phase"], int(row["connections"])): row for row in rows}
MIB = 1024.0


def valid(row):
    return row is not None and float(row["errors_pct"]) <= 1.0


def goal(ok):
    return "met" if ok else "**not met**"


def cell(row):
    if row is None:
        return "–"
    flag = "" if valid(row) else " INVALID"
    return f"{float(row['valid_per_s']):,.0f}{flag}"


health = by[("health", 8)]
# /health is measured before and after the token phases; the ratios use the faster one (the stricter baseline).
health_first = options.health
options.health = max(options.health, options.health_again)
print(f"Machine: {options.cores} cores (loopback; wrk and both servers share them). Phases of equal length, one run.\n")
print("| connections | ours: valid req/s | p50 / p99 ms | errors | glewlwyd: valid req/s | p50 / p99 ms | errors | ours ÷ glewlwyd |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
plot_rows = []
for connections in (1, 2, 4, 8, 16):
    ours, theirs = by.get(("ours-token", connections)), by.get(("glewlwyd-token", connections))
    ratio = "–"
    if valid(ours) and valid(theirs) and float(theirs["valid_per_s"]) > 0:
        ratio = f"{float(ours['valid_per_s']) / float(theirs['valid_per_s']):.1f}×"
    print(f"| {connections} | {cell(ours)} | {ours['p50_ms']} / {ours['p99_ms']} | {ours['errors_pct']} % | {cell(theirs)} | "
          f"{theirs['p50_ms']} / {theirs['p99_ms']} | {theirs['errors_pct']} % | {ratio} |")
    # Runs with more than 1 % errors are left out of the plot (gnuplot skips NaN).
    plot_rows.append((connections, float(ours["valid_per_s"]) if valid(ours) else float("nan"),
                      float(theirs["valid_per_s"]) if valid(theirs) else float("nan")))


def highest_valid(phase):
    good = [c for c in (1, 2, 4, 8, 16) if valid(by.get((phase, c)))]
    return max(good) if good else 0


ours8, theirs8 = by[("ours-token", 8)], by[("glewlwyd-token", 8)]
token_ratio = float(ours8["valid_per_s"]) / options.health if valid(ours8) else 0.0
versus = float(ours8["valid_per_s"]) / float(theirs8["valid_per_s"]) if valid(ours8) and valid(theirs8) and float(theirs8["valid_per_s"]) else 0.0
loaded = by[("health-during-logins", 8)]
growth = (options.rss_after - options.rss_before) / MIB
per_request = (options.rss_after - options.rss_before) * 1024 / options.memory_requests if options.memory_requests else float("nan")

print()
print("| measurement | value | goal | |")
print("|---|---:|---:|---|")
print(f"| `/health`, 8 connections, before and after the token phases | {health_first:,.0f} and {options.health_again:,.0f} req/s "
      f"(p50 {health['p50_ms']} ms, p99 {health['p99_ms']} ms) | | |")
print(f"| DPoP token endpoint ÷ `/health`, 8 connections | {token_ratio:.2f}× | reported (one BoringSSL ES256 check a request) | |")
both = [c for c in (1, 2, 4, 8, 16) if valid(by.get(("ours-token", c))) and valid(by.get(("glewlwyd-token", c)))]
shared = max(both) if both else 0
at_shared = (float(by[("ours-token", shared)]["valid_per_s"]) / float(by[("glewlwyd-token", shared)]["valid_per_s"])) if shared else 0.0


def best_valid(phase):
    rates = [float(by[(phase, c)]["valid_per_s"]) for c in (1, 2, 4, 8, 16) if valid(by.get((phase, c)))]
    return max(rates) if rates else 0.0


best_ratio = best_valid("ours-token") / best_valid("glewlwyd-token") if best_valid("glewlwyd-token") else 0.0
if valid(theirs8):
    print(f"| DPoP token endpoint, ours ÷ glewlwyd, 8 connections | {versus:.1f}× | ≥ 5× | {goal(versus >= 5)} |")
else:
    print(f"| DPoP token endpoint, ours ÷ glewlwyd, 8 connections | glewlwyd INVALID ({theirs8['errors_pct']} % errors) | ≥ 5× | cannot be measured |")
print(f"| … at the highest concurrency where both are valid ({shared}) | {at_shared:.1f}× | ≥ 5× | {goal(at_shared >= 5)} |")
print(f"| … best valid throughput of each | {best_valid('ours-token'):,.0f} ÷ {best_valid('glewlwyd-token'):,.0f} = {best_ratio:.1f}× | | |")
print(f"| highest concurrency without errors (of 1–16) | ours {highest_valid('ours-token')}, glewlwyd {highest_valid('glewlwyd-token')} | | |")
sustained = by[("ours-sustained", 8)]
print(f"| DPoP token endpoint, 60 s at full rate, 8 connections | {float(sustained['valid_per_s']):,.0f} valid req/s, "
      f"{sustained['errors_pct']} % refused (p50 {sustained['p50_ms']} ms, p99 {sustained['p99_ms']} ms) | < 1 % refused | "
      f"{goal(float(sustained['errors_pct']) < 1.0)} |")
one, many = by[("ours-1key", 8)], by[("ours-64keys", 8)]
keys_ratio = float(many["valid_per_s"]) / float(one["valid_per_s"]) if valid(one) and valid(many) and float(one["valid_per_s"]) else 0.0
print(f"| 64 client keys in turn ÷ one key, 10 s each, 8 connections | {float(many['valid_per_s']):,.0f} ÷ "
      f"{float(one['valid_per_s']):,.0f} = {keys_ratio:.2f}× ({many['errors_pct']} % and {one['errors_pct']} % refused) | ≥ 0.95× | "
      f"{goal(keys_ratio >= 0.95)} |")
print(f"| `/health` while 2 clients log in ÷ idle, 8 connections | {options.health_loaded / options.health:.2f}× "
      f"({options.health_loaded:,.0f} req/s, p50 {loaded['p50_ms']} ms, p99 {loaded['p99_ms']} ms; {options.logins:.1f} logins/s) | ≥ 0.6× | "
      f"{goal(options.health_loaded / options.health >= 0.6 and valid(loaded))} |")
latency, latency_loaded = by[("health-latency", 1)], by[("health-latency-during-logins", 1)]
busy_core = by[("health-latency-core-busy", 1)]
print(f"| `/health` latency, 1 connection: idle → while 2 clients log in | p50 {latency['p50_ms']} → {latency_loaded['p50_ms']} ms, "
      f"p99 {latency['p99_ms']} → {latency_loaded['p99_ms']} ms | p99 ≤ 2 ms under logins | "
      f"{goal(float(latency_loaded['p99_ms']) <= 2.0 and valid(latency_loaded))} |")
print(f"| … 1 connection while `yes` keeps one core busy, no login | p50 {busy_core['p50_ms']} ms, "
      f"p99 {busy_core['p99_ms']} ms | | |")
print(f"| `haapi demo` to its first menu (best of 5) | {options.demo_start:.3f} s | < 0.1 s | {goal(options.demo_start < 0.1)} |")
print(f"| SDK step ÷ (P-256 signature + JSON parse) | {options.sdk:.2f}× | ≤ 1.5× | {goal(options.sdk <= 1.5)} |")
print(f"| `haapi serve` RSS growth over {options.memory_requests:,.0f} DPoP token requests | {growth:.1f} MiB ({per_request:.0f} B/request) "
      f"| < 5 MiB | {goal(growth < 5)} |")
print(f"| `haapi serve` RSS after warm-up → peak after all phases | {options.rss_start / MIB:.1f} → {options.serve_peak / MIB:.1f} MiB "
      f"({options.serve_peak / options.glewlwyd_peak:.2f}× glewlwyd's peak) | ≤ 2× glewlwyd | "
      f"{goal(options.serve_peak <= 2 * options.glewlwyd_peak)} |")
print(f"| where `haapi serve`'s RSS is, after all phases | {options.serve_anon / MIB:.1f} MiB heap and stacks, "
      f"{options.serve_file / MIB:.1f} MiB pages of the binary and shared libraries | | |")
print(f"| `haapi demo --non-interactive` peak RSS | {options.demo_peak / MIB:.1f} MiB | | |")
print(f"| glewlwyd RSS after its phases; its peak | {options.glewlwyd_rss / MIB:.1f} MiB; {options.glewlwyd_peak / MIB:.1f} MiB | | |")

data = options.plot + ".dat"
with open(data, "w") as handle:
    for connections, ours, theirs in plot_rows:
        handle.write(f"{connections} {ours} {theirs}\n")
script = f"""
set terminal png size 800,480 noenhanced
set output '{options.plot}'
set title "DPoP token endpoint (client_credentials, ES256 proof per request), wrk, loopback, {options.cores} cores\\nruns with more than 1 % errors are left out"
set xlabel 'connections'
set ylabel 'valid responses per second'
set logscale x 2
set xrange [0.8:20]
set xtics (1, 2, 4, 8, 16)
set yrange [0:*]
set key top left
set grid
plot '{data}' using 1:2 with linespoints lw 2 title 'swift-haapi dev server', \\
     '{data}' using 1:3 with linespoints lw 2 title 'glewlwyd 2.7.5'
"""
subprocess.run(["gnuplot"], input=script.encode(), check=True)

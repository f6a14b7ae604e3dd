#!/usr/bin/env python3
"""bench_clockstats.py - bench/clockstats.py gives the peers the statistics
tilec's profiler gives its samples (tests/profiler/test_report.c,
test_summarise, checks the same figures on the C side)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import clockstats  # noqa: E402

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAILED:", what)


# 20 samples at full clock, then 80 capped: the median clock is the capped one
times = [1.70 + 0.001 * (i % 3) if i < 20 else 1.95 + 0.001 * (i % 5) for i in range(100)]
clocks = [1980 if i < 20 else 1660 for i in range(100)]
s = clockstats.summarise(times, clocks)
check(s["sm_clock_mhz"] == 1660 and s["full_clock_mhz"] == 1980, f"clocks {s}")
check(s["full_clock_samples"] == 20 and abs(s["full_clock_median_ms"] - 1.701) < 1e-9, f"full clock {s}")
check(abs(s["median_ms"] - 1.951) < 1e-9 and s["samples"] == 100, f"median {s}")
check(clockstats.part_at_full_clock(s), "a part at full clock")
# one clock throughout, and none measured
s = clockstats.summarise(times, [1980] * 100)
check(s["full_clock_samples"] == 100 and not clockstats.part_at_full_clock(s), f"one clock {s}")
s = clockstats.summarise(times, [None] * 100)
check(s["sm_clock_mhz"] is None and s["full_clock_median_ms"] is None and not clockstats.part_at_full_clock(s),
      f"no clock {s}")
# clocks measured on some samples only (every tenth, as the benchmarks do)
s = clockstats.summarise(times, [c if i % 10 == 0 else None for i, c in enumerate(clocks)])
check(s["full_clock_samples"] == 2 and s["sm_clock_mhz"] == 1660, f"sparse clocks {s}")
print(f"bench_clockstats: {failures} failed")
sys.exit(1 if failures else 0)

"""clockstats.py - the statistics tilec's profiler gives its samples
(profiler/bench.c, prof_bench_summarise), for the peers that bench/peers.py
times: the median time, the median SM clock, and the median of the samples
that ran within 5% of the fastest clock measured. A kernel that takes the
card to its power limit runs its first samples at full clock and the rest
capped (attention on the H200: 700 W, ~1700 MHz after ~0.5 s; bench/RESULTS.md,
session 8), so the median alone mixes the two."""
import statistics

FULL_CLOCK_FRACTION = 0.95


def summarise(times, clocks):
    """times: ms per sample; clocks: the SM clock (MHz) measured around each
    sample, or None where not measured. A dict: median_ms, samples,
    sm_clock_mhz, full_clock_mhz, full_clock_samples, full_clock_median_ms
    (the clock fields None when no clock was measured)."""
    out = {"median_ms": statistics.median(times), "samples": len(times), "sm_clock_mhz": None,
           "full_clock_mhz": None, "full_clock_samples": None, "full_clock_median_ms": None}
    measured = [(t, c) for t, c in zip(times, clocks) if c]
    if measured:
        fastest = max(c for _, c in measured)
        full = [t for t, c in measured if c >= FULL_CLOCK_FRACTION * fastest]
        out.update(sm_clock_mhz=statistics.median(c for _, c in measured), full_clock_mhz=fastest,
                   full_clock_samples=len(full), full_clock_median_ms=statistics.median(full))
    return out


def part_at_full_clock(s):
    """Whether some samples, not all, ran at full clock (then their median is worth giving)."""
    n = s.get("full_clock_samples") or 0
    return bool(s.get("full_clock_median_ms")) and 0 < n < (s.get("samples") or 0)

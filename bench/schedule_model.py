#!/usr/bin/env python3
"""schedule_model.py - how evenly persistent blocks share causal attention's
tiles, by order (a model, no GPU).

Each tile costs its trip count (key blocks) plus FIXED iterations; 132 SMs
run one block each. Prints the busiest SM's load over the mean for the
static snake (tilec before session 14), and for a greedy list schedule (a
free block takes the next tile from a counter) in plan_schedule's order:
sections of heads whose K and V fit in 32 MB, each section longest first,
the remainder section first.

    python3 bench/schedule_model.py [S B H BM BN D] ...
"""
import heapq
import sys

SMS, FIXED, L2_SECTION = 132, 2.0, 32 << 20


def trips(S, BM, BN, bx):
    return min(-(-(bx + 1) * BM // BN), -(-S // BN))


def snake(works):
    load = [0.0] * SMS
    for t, w in enumerate(works):
        n, b = divmod(t, SMS)
        load[b if n % 2 == 0 else SMS - 1 - b] += w + FIXED
    return max(load)


def greedy(works):
    free = [(0.0, b) for b in range(SMS)]
    for w in works:
        at, b = heapq.heappop(free)
        heapq.heappush(free, (at + w + FIXED, b))
    return max(at for at, _ in free)


def model(S, B, H, BM, BN, D):
    G, heads = -(-S // BM), B * H
    grid_order = [trips(S, BM, BN, bx) for _ in range(heads) for bx in range(G)]
    section = max(1, L2_SECTION // (trips(S, BM, BN, G - 1) * BN * D * 2 * 2))
    bounds, h = [], heads % section
    if h:
        bounds.append((0, h))
    while h < heads:
        bounds.append((h, h + section))
        h += section
    longest = [trips(S, BM, BN, bx) for a, b in bounds for bx in reversed(range(G)) for _ in range(a, b)]
    mean = sum(w + FIXED for w in grid_order) / SMS
    print("S=%d B=%d H=%d BM=%d BN=%d D=%d: static snake %.3f, longest first in sections of %d %.3f" %
          (S, B, H, BM, BN, D, snake(grid_order) / mean, section, greedy(longest) / mean))


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    cases = [args[i:i + 6] for i in range(0, len(args), 6)] or [
        [4096, 8, 16, 192, 96, 128], [16384, 2, 16, 128, 128, 128], [16384, 2, 16, 192, 96, 128],
        [4096, 8, 16, 192, 128, 64]]
    for c in cases:
        model(*c)

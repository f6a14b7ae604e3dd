"""launch_cost.py - host cost of one call of a cached kernel from Python:
tilec's k(X, Y, Z) on examples/add.tile at N = 4096 (the GPU work tiny),
back to back, beside a Triton kernel doing the same add, in the same run.
Prints the median over rounds of the per-call host time in microseconds;
a round is CALLS calls, fewer than the launch queue holds, so the host
never waits for the GPU. With --profile, also where k(X, Y, Z)'s time
goes (cProfile, by own time). Run on the GPU machine:
python3 bench/launch_cost.py [CALLS] [--profile] (after ./build.sh)."""
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import tilec  # noqa: E402

N = 4096
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
CALLS = int(ARGS[0]) if ARGS else 200


def per_call_us(fn, rounds=41):
    """The median over rounds of (host time of CALLS calls) / CALLS, each
    round after a synchronisation; the GPU drains after the clock stops."""
    out = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        out.append((time.perf_counter() - t0) / CALLS * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


def main():
    x = torch.randn(N, device="cuda", dtype=torch.float16)
    y = torch.randn(N, device="cuda", dtype=torch.float16)
    z = torch.empty_like(x)
    k = tilec.compile(os.path.join(HERE, "..", "examples", "add.tile"), set={"N": N, "BLOCK": 1024})
    k(x, y, z)
    torch.cuda.synchronize()
    assert torch.equal(z, x + y), "tilec's add is wrong"
    k(x, y, z)  # the second call makes the C fast path, where it is built
    print("tilec  k(X, Y, Z):   %.2f us a call (%s)" % (
        per_call_us(lambda: k(x, y, z)), "C fast path" if getattr(k, "_fast", None) else "Python path"))
    if "--profile" in sys.argv:
        import cProfile
        import pstats
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20 * CALLS):
            k(x, y, z)
        prof.disable()
        torch.cuda.synchronize()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def add(X, Y, Z, n, BLOCK: tl.constexpr):
            i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(Z + i, tl.load(X + i, mask=i < n) + tl.load(Y + i, mask=i < n), mask=i < n)

        grid = (N // 1024,)
        add[grid](x, y, z, N, BLOCK=1024)
        print("triton add[grid](...): %.2f us a call" % per_call_us(lambda: add[grid](x, y, z, N, BLOCK=1024)))
    except ImportError:
        print("triton: not installed")
    print("torch  torch.add(out=): %.2f us a call" % per_call_us(lambda: torch.add(x, y, out=z)))


if __name__ == "__main__":
    main()

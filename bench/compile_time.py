#!/usr/bin/env python3
"""compile_time.py [--tilec PATH] [--arch ARCH] [--runs N] EXAMPLE... - cold compile time of
examples, parse -> cubin (`--no-cache --emit-cubin`), through both code generators: the best of N
runs of the whole tilec process each, and llvm's time over NVRTC's (issue 34 asks for <= 0.7).
Needs no GPU. Run with nothing else on the machine; `-v` on one compile gives the split."""
import argparse
import os
import subprocess
import tempfile
import time


def best_time(tilec, backend, arch, path, runs, cubin):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        r = subprocess.run([tilec, "--no-cache", "--backend", backend, "--arch", arch, "--emit-cubin", "-o", cubin,
                            path], capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if r.returncode != 0:
            raise SystemExit(f"{path} ({backend}): exit {r.returncode}: {r.stderr.strip()[:300]}")
        best = min(best, elapsed)
    return best


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--tilec", default=os.path.join(here, "..", "build", "tilec"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("examples", nargs="+", help="names under examples/ (gemm) or paths")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        for ex in args.examples:
            path = ex if ex.endswith(".tile") else os.path.join(here, "..", "examples", ex + ".tile")
            nv = best_time(args.tilec, "nvrtc", args.arch, path, args.runs, cubin)
            ll = best_time(args.tilec, "llvm", args.arch, path, args.runs, cubin)
            print(f"{os.path.basename(path)}: nvrtc {nv:.3f} s, llvm {ll:.3f} s, llvm / nvrtc {ll / nv:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tile_order.py TILEC ROOT - a persistent kernel's tile order visits every
tile of its grid exactly once (every piece of it once, where plan_split
cuts tiles into pieces; whole or as both of its halves, where plan_halves
runs the last wave in halves of the tiles' columns).

The generated code of a persistent kernel turns a tile number tl_tile in
[0, tiles) into block indices: the static order, plan_idle's idle tiles
last, or plan_schedule's longest first in sections; a split kernel's unit
number in [0, tiles * pieces) into a tile's block indices and a piece. This takes those lines
out of `tilec --emit-cuda --arch sm_90a` (the producer's loop), compiles them with the host C
compiler into a loop over every tile number, and checks that each block of
the grid comes out once; for the longest-first order also that the index
along the grid only falls within a section (it rises once a section). CPU
only."""
import os
import re
import subprocess
import sys
import tempfile

tilec, root = sys.argv[1], sys.argv[2]
cc = os.environ.get("CC", "cc")

# (example, --set values, schedule options, the order the kernel must use)
CASES = [
    ("flash_attn", "causal=1,BM=192,BN=96", [], "longest"),                  # sections of 15 after one of 8
    ("flash_attn", "causal=1,BM=192,BN=128,D=64", [], "longest"),            # sections of 32, none short
    ("flash_attn", "causal=1,S=16384,B=2", [], "longest"),                   # sections of 4
    ("flash_attn", "causal=1,BM=192,BN=96,S=16384,B=2", [], "longest"),      # sections of 3 after one of 2
    ("flash_attn", "causal=1,BM=192,BN=96,B=1,H=2,S=300", ["--persistent=on"], "longest"),  # one section
    ("flash_attn", "causal=1,BM=192,BN=96", ["--longest-first=off"], "static"),
    ("flash_attn", "BM=192,BN=96", [], "idle"),                              # S = 4096: last query block idle
    ("flash_attn", "BM=192,BN=96,S=4224", [], "static"),
    ("gemm", "M=3000,N=2000,K=1024,BM=192,BN=128", [], "static"),  # panels: grid order kept
    ("tests/passes/plan_schedule/along_dim1.tile", "S=4000", [], "longest"),  # query blocks along dimension 1
    ("tests/frontend/valid/v_triangular_gemm.tile", "M=3072", [], "longest"),  # a GEMM's row blocks, 24 column blocks
    ("tests/frontend/valid/v_triangular_gemm.tile", "M=3840,N=2944", [], "longest"),  # 23 column blocks: a short first section
    ("gemm", "M=1080,N=1016,K=4096", [], "split"),   # 36 tiles in 3 pieces, panels of 8 columns
    ("gemm", "M=256,N=256,K=16384", [], "split"),    # 2 tiles in 16 pieces
    ("gemm", "M=1536,N=4096,K=4096", [], "halves"),  # 192 tiles, the last 60 in halves, panels of 8 columns
    ("tests/passes/plan_halves/tail_wave.tile", "M=1450", [], "halves, idle last"),  # the last row's warpgroup 1 idle
]

PROGRAM = r"""
#include <stdio.h>
static int min(int a, int b) { return a < b ? a : b; }
static unsigned char seen[%(seen)d];
int main(void) {
    int rises = 0, last_x = -1;
    for (int tl_tile = 0; tl_tile < %(tiles)d; tl_tile++) {
        int tx, ty, tz, tp;
        {
%(lines)s
            tx = %(bx)s; ty = %(by)s; tz = %(bz)s; tp = %(piece)s;
            %(rise)s
        }
        if (tp < 0 || tp >= %(ways)d) {
            printf("unit %%d runs piece %%d of %(ways)d\n", tl_tile, tp);
            return 1;
        }
        const int bx = tx, by = ty, bz = tz;
        if (bx < 0 || bx >= %(gx)d || by < 0 || by >= %(gy)d || bz < 0 || bz >= %(gz)d) {
            printf("tile %%d runs block (%%d, %%d, %%d), outside the grid\n", tl_tile, bx, by, bz);
            return 1;
        }
        if (seen[(bx + %(gx)d * (by + %(gy)d * bz)) * %(ways)d + tp]++) {
            printf("tile %%d runs block (%%d, %%d, %%d) piece %%d again\n", tl_tile, bx, by, bz, tp);
            return 1;
        }
    }
    %(whole_or_halves)s
    printf("%%d\n", rises);
    return 0;
}
"""


def check(example, values, options, order, tmp):
    path = "%s/%s" % (root, example) if example.endswith(".tile") else "%s/examples/%s.tile" % (root, example)
    args = [tilec, "--arch", "sm_90a", "--set", values] + options + [path]
    cu = subprocess.run(args[:1] + ["--emit-cuda"] + args[1:], capture_output=True, text=True,
                        check=True).stdout
    gx, gy, gz = (int(v) for v in re.search(r"// launch: grid \((\d+), (\d+), (\d+)\)", cu).groups())
    # the producer's loop (the first; with the longest-first order it hands
    # the consumers each tile in grid order), its lines up to the block
    # indices' __builtin_assume
    head = re.search(r"for \(int tl_n = 0, tl_tile = blockIdx\.x; tl_tile < (\d+);\n.*\n|"
                     r"for \(int tl_tile = blockIdx\.x; tl_tile < (\d+); .*tl_tiles_draw.*\n", cu)
    if not head:
        return "not persistent"
    start = head.end()
    lines = "\n".join(l for l in cu[start:cu.index("__builtin_assume", start)].splitlines() if "tl_tiles_publish" not in l)
    split = re.search(r"tl_piece = tl_tile % (\d+);", cu)
    # plan_halves: "pieces" 0 (a whole tile), 1 and 2 (its halves)
    halves = re.search(r"tl_half = tl_tile >= (\d+);.*\n.*tl_hcol = tl_half \? \(tl_tile - \d+\) % 2 \* (\d+) : 0;", cu)
    ways = int(split.group(1)) if split else 3 if halves else 1
    idle = "idle warpgroups last" in cu
    kind = ("longest" if "tl_tiles_draw(tl_tile_count)" in cu else "split" if split else
            ("halves, idle last" if idle else "halves") if halves else "idle" if idle else "static")
    if kind != order:
        return "the %s order, not the %s one" % (kind, order)
    tiles = int(head.group(1) or head.group(2))
    whole = int(halves.group(1)) if halves else 0
    if tiles != (whole + 2 * (gx * gy * gz - whole) if halves else gx * gy * gz * ways):
        return "%d units for a grid of %d blocks in %d pieces" % (tiles, gx * gy * gz, ways)
    check_halves = ""
    if halves:
        check_halves = ("for (int t = 0; t < %d; t++) if (!(seen[3 * t] == 1 && !seen[3 * t + 1] && !seen[3 * t + 2]) && "
                        "!(!seen[3 * t] && seen[3 * t + 1] == 1 && seen[3 * t + 2] == 1)) "
                        "{ printf(\"block %%d: neither whole nor both halves\\n\", t); return 1; }" % (gx * gy * gz))
    # the block indices, in grid order, from the __builtin_assume lines after them
    at = cu.index("__builtin_assume", start)
    assumes = re.match(r"((?:\s*__builtin_assume\(\w+ >= 0 && \w+ < \d+\);)+)", cu[at:]).group(1)
    assumes = re.findall(r"__builtin_assume\((\w+) >= 0", assumes)
    names = dict(zip(("bx", "by", "bz"), assumes + ["0"] * (3 - len(assumes))))
    rise = "if (tl_x > last_x && last_x >= 0) rises++; last_x = tl_x;" if order == "longest" else ""
    src = os.path.join(tmp, "order.c")
    with open(src, "w") as f:
        f.write(PROGRAM % dict(tiles=tiles, lines=lines, rise=rise, gx=gx, gy=gy, gz=gz, ways=ways,
                               piece="tl_piece" if split else
                               "(tl_half ? 1 + tl_hcol / %s : 0)" % halves.group(2) if halves else "0",
                               whole_or_halves=check_halves, seen=gx * gy * gz * ways, **names))
    exe = os.path.join(tmp, "order")
    subprocess.run([cc, "-O1", "-o", exe, src], check=True)
    run = subprocess.run([exe], capture_output=True, text=True)
    if run.returncode:
        return run.stdout.strip()
    if order == "longest":
        ir = subprocess.run(args[:1] + ["--emit-cuda", "--print-ir-after=plan_schedule"] + args[1:],
                            capture_output=True, text=True, check=True).stderr
        dim, section = (int(v) for v in re.search(r"longest_first\(grid dimension (\d) [a-z ]+, sections of (\d+)\)",
                                                   ir).groups())
        units = tiles // (gx, gy, gz)[dim]
        sections = units // section + (units % section > 0)
        if int(run.stdout) != sections - 1:
            return "the index along the grid rises %s times, in %d sections" % (run.stdout.strip(), sections)
    return None


failed = 0
with tempfile.TemporaryDirectory() as tmp:
    for example, values, options, order in CASES:
        why = check(example, values, options, order, tmp)
        print("%s %s %s %s%s" % ("FAIL" if why else "ok  ", example, values, " ".join(options),
                                 ": " + why if why else ""))
        failed += why is not None
sys.exit(1 if failed else 0)

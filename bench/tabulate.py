#!/usr/bin/env python3
"""tabulate.py OUTDIR - the markdown section of bench/RESULTS.md from what
bench/run.sh left in OUTDIR: one tilec --json file per workload, the peers
(peers.jsonl) and the card's state before and after (gpu-*.csv). The
environment's ONLY and PEERS (as bench/run.sh had them) select the rows
and name the peer groups in the command line it prints."""
import datetime
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clockstats  # noqa: E402

out = sys.argv[1]
peers = {}
for line in open(os.path.join(out, "peers.jsonl")):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        peers[(r["peer"], r["workload"])] = r

# tilec workload, its label, the metric, and the peers to divide by
ROWS = [
    ("gemm_f16_4096", "gemm fp16 4096³", "tflops", [("cublas", "gemm_f16_4096"), ("triton", "gemm_f16_4096")]),
    ("gemm_f16_8192", "gemm fp16 8192³", "tflops", [("cublas", "gemm_f16_8192"), ("triton", "gemm_f16_8192")]),
    ("gemm_bf16_4096", "gemm bf16 4096³", "tflops", [("cublas", "gemm_bf16_4096")]),
    ("gemm_bf16_8192", "gemm bf16 8192³", "tflops", [("cublas", "gemm_bf16_8192")]),
    ("gemm_f16_ragged_3000x2000x1000", "gemm fp16 3000×2000×1000", "tflops", []),
    ("gemm_f16_ragged_3000x2000x1000_bn192", "  the same, BN=192", "tflops", []),
    ("gemm_f16_ragged_3000x2000x1000_bm192", "  the same, 192 × 128, 4 stages", "tflops", []),
    ("gemm_bias_gelu_4096", "gemm+bias+gelu fp16 4096³", "tflops", [("cublas", "gemm_f16_4096")]),
    ("gemm_fp8_4096", "gemm fp8 e4m3 4096³ (bf16 out)", "tflops", [("cublas fp8", "gemm_fp8_4096")]),
    ("gemm_fp8_8192", "gemm fp8 e4m3 8192³", "tflops", [("cublas fp8", "gemm_fp8_8192")]),
    ("attn_f16_s4096_d128", "attention fp16 B8 H16 S4096 D128", "tflops", [("torch SDPA", "attn_f16_s4096_d128"), ("SDPA best backend", "attn_f16_s4096_d128")]),
    ("attn_f16_s4096_d128_causal", "  causal", "tflops", [("torch SDPA", "attn_f16_s4096_d128_causal"), ("SDPA best backend", "attn_f16_s4096_d128_causal")]),
    ("attn_f16_s16384_d128", "attention fp16 B2 H16 S16384 D128", "tflops", [("torch SDPA", "attn_f16_s16384_d128"), ("SDPA best backend", "attn_f16_s16384_d128")]),
    ("attn_f16_s16384_d128_causal", "  causal", "tflops", [("torch SDPA", "attn_f16_s16384_d128_causal"), ("SDPA best backend", "attn_f16_s16384_d128_causal")]),
    ("attn_f16_s4096_d64", "attention fp16 B8 H16 S4096 D64", "tflops", [("torch SDPA", "attn_f16_s4096_d64"), ("SDPA best backend", "attn_f16_s4096_d64")]),
    ("attn_f16_s4096_d64_causal", "  causal", "tflops", [("torch SDPA", "attn_f16_s4096_d64_causal"), ("SDPA best backend", "attn_f16_s4096_d64_causal")]),
    ("softmax_f16_32768x4096", "softmax fp16 32768×4096", "gbps",
     [("copy", "copy_1GiB"), ("copy, same bytes", "softmax_f16_32768x4096"), ("torch.softmax", "softmax_f16_32768x4096")]),
    ("rmsnorm_bf16_16384x8192", "rmsnorm bf16 16384×8192", "gbps",
     [("copy", "copy_1GiB"), ("copy, same bytes", "rmsnorm_bf16_16384x8192"), ("F.rms_norm", "rmsnorm_bf16_16384x8192")]),
    ("layernorm_f16_8192x4096", "layernorm fp16 8192×4096", "gbps",
     [("copy", "copy_1GiB"), ("copy, same bytes", "layernorm_f16_8192x4096"), ("F.layer_norm", "layernorm_f16_8192x4096")]),
    ("layernorm_f16_32768x4096", "layernorm fp16 32768×4096", "gbps",
     [("copy", "copy_1GiB"), ("copy, same bytes", "layernorm_f16_32768x4096"), ("F.layer_norm", "layernorm_f16_32768x4096")]),
    ("add_f16_2e26", "add fp16 2^26", "gbps", [("copy", "copy_1GiB"), ("copy, same bytes", "add_f16_2e26")]),
    ("swiglu_f16_8192x11008", "swiglu fp16 8192×11008", "gbps", [("copy", "copy_1GiB"), ("copy, same bytes", "swiglu_f16_8192x11008")]),
]


def load(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        return None


def first_row(csv):
    try:
        lines = [l.strip() for l in open(os.path.join(out, csv)) if l.strip()]
        return dict(zip([h.strip() for h in lines[0].split(",")], [v.strip() for v in lines[1].split(",")]))
    except (OSError, IndexError):
        return {}


before, after = first_row("gpu-before.csv"), first_row("gpu-after.csv")
for row in (before, after):  # nvidia-smi names the current SM clock "clocks.current.sm [MHz]"
    row["sm"] = next((v for k, v in row.items() if k.startswith("clocks.current.sm") or k.startswith("clocks.sm")), "?")
card = before.get("name", "unknown card")
print(f"## {datetime.date.today().isoformat()}, {card} (driver {before.get('driver_version', '?')}): `bench/run.sh`\n")
only, peer_groups = os.environ.get("ONLY", "."), os.environ.get("PEERS", "gemm fp8 triton copy softmax norm attn")
command = "bench/run.sh $OUT" if only == "." else f"ONLY='{only}' bench/run.sh $OUT"
print(f"Command: `{command}` on the GPU machine (tilec `--profile --consistency 3 --json` per workload,")
print(f"then `bench/peers.py {peer_groups}`, all in one process group, one after the other).")
print(f"Card before: {before['sm']} SM clock, {before.get('power.draw [W]', '?')} of "
      f"{before.get('power.limit [W]', '?')}, {before.get('temperature.gpu', '?')} °C; after: "
      f"{after['sm']}, {after.get('power.draw [W]', '?')}, {after.get('temperature.gpu', '?')} °C.\n")
print("| workload | tilec | SM clock (throttled samples) | peers (same run) | ratio |")
print("|---|---|---|---|---|")
for name, label, metric, plist in ROWS:
    if not re.search(only, name):
        continue
    t = load(name)
    if not t or not t.get("bench") or t["bench"].get("median_ms") is None:
        print(f"| {label} | not measured (see {name}.txt) | | | |")
        continue
    b, d = t["bench"], t["derived"]
    unit = "TFLOP/s" if metric == "tflops" else "GB/s"
    val = d.get(metric) or 0
    clock = f"{b.get('sm_clock_mhz') or 0:.0f} MHz ({b.get('throttled_samples', '?')})"
    if clockstats.part_at_full_clock(b):
        clock += f"; {b['full_clock_median_ms']:.4g} ms in the {b['full_clock_samples']} samples at full clock"
    ps, rs = [], []
    for peer, wl in plist:
        p = peers.get((peer, wl))
        if not p or not p.get(metric):
            continue
        at = f" at {p['sm_clock_mhz']:.0f} MHz" if p.get("sm_clock_mhz") else ""
        if clockstats.part_at_full_clock(p):
            at += f", {p['full_clock_median_ms']:.4g} ms in the {p['full_clock_samples']} samples at full clock"
        ps.append(f"{peer}{' (' + p['backend'] + ')' if p.get('backend') else ''} {p[metric]:.0f} {unit}{at}")
        ratio = f"{val / p[metric]:.3f}× {peer}"
        if (clockstats.part_at_full_clock(b) or clockstats.part_at_full_clock(p)) and p.get("median_ms"):
            # the rates at full clock (a rate scales as 1 / time); peers such
            # as "copy" move other amounts of work, so times are not compared
            mine = val * b["median_ms"] / (b.get("full_clock_median_ms") or b["median_ms"])
            theirs = p[metric] * p["median_ms"] / (p.get("full_clock_median_ms") or p["median_ms"])
            ratio += f" ({mine / theirs:.3f}× at full clock)"
        rs.append(ratio)
    cmp = t.get("compare") or {}
    if cmp.get("median_ms"):
        ps.append(f"--compare {cmp.get('name')} {cmp['median_ms']:.4g} ms")
        rs.append(f"{cmp['median_ms'] / b['median_ms']:.3f}× ({cmp.get('name')}, interleaved)")
    print(f"| {label} | {b['median_ms']:.4g} ms, {val:.0f} {unit} | {clock} | {'; '.join(ps) or '—'} | "
          f"{'; '.join(rs) or '—'} |")

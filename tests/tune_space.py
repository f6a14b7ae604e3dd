#!/usr/bin/env python3
"""tune_space.py TILEC EXAMPLES_DIR - every configuration of every example's
`tune` space compiles for sm_90a (the default target without a GPU) the way
the default does: through NVRTC and ptxas with no spills and without ptxas
serialising wgmmas. The autotuner drops candidates that fail, so a code
generation bug in an unusual configuration would otherwise go unnoticed
until someone measured it. A configuration the checker refuses with a
diagnostic (exit 1: it does not fit the hardware) is allowed; a failure
after that (exit 4: NVRTC or ptxas) is not. The examples' dynamic sizes are
compiled in (--specialise): the space is the schedule's and the tiles'."""
import concurrent.futures
import itertools
import os
import re
import subprocess
import sys
import tempfile

tilec, examples = sys.argv[1], sys.argv[2]
# the kernel's tune clause (not a `tune TARGET:` one, whose values are among its candidates)
TUNE = re.compile(r"^\s+tune\s+(?!\w+\s*:)(.*?)(?:\n\s*(?:tune|grid|threads|flops)\b)", re.S | re.M)
ITEM = re.compile(r"(\w+)\s*=\s*[^,\[\n]+?\s+in\s+\[([^\]]*)\]")


def space(path):
    """The settings of the file's tune space, and the kernel it belongs to
    (in a file with a pipeline, one of its stages)."""
    text = open(path).read()
    m = TUNE.search(text)
    if not m:
        return [], None
    kernel = re.findall(r"^kernel (\w+)\(", text[: m.start()], re.M)[-1]
    names, values = [], []
    for name, vals in ITEM.findall(m.group(1)):
        names.append(name)
        values.append([v.strip() for v in vals.split(",") if v.strip()])
    return [",".join(f"{n}={v}" for n, v in zip(names, combo)) for combo in itertools.product(*values)], kernel


def check(job):
    path, kernel, setting, out = job
    r = subprocess.run([tilec, "-v", "--no-cache", "--emit-cubin", "-o", out, "--arch", "sm_90a", "--specialise", "--set", setting,
                        "--kernel", kernel, path],
                       capture_output=True, text=True, timeout=300)
    log = r.stdout + r.stderr
    if r.returncode == 1 and ": error: " in log:
        return "skip", path, setting, log.splitlines()[0][:150]
    if r.returncode != 0:
        return "fail", path, setting, f"exit {r.returncode}: " + " | ".join(log.splitlines()[:3])[:300]
    if " 0 bytes spill stores" not in log:
        return "fail", path, setting, "spills: " + next((l for l in log.splitlines() if "registers" in l), "")[:200]
    if "Potential Performance Loss" in log:
        return "fail", path, setting, next(l for l in log.splitlines() if "Potential Performance Loss" in l)[:200]
    return "ok", path, setting, ""


with tempfile.TemporaryDirectory() as tmp:
    jobs = []
    for f in sorted(os.listdir(examples)):
        if f.endswith(".tile"):
            settings, kernel = space(os.path.join(examples, f))
            for i, s in enumerate(settings):
                jobs.append((os.path.join(examples, f), kernel, s, os.path.join(tmp, f"{f}.{i}.cubin")))
    counts = {"ok": 0, "skip": 0, "fail": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for status, path, setting, why in pool.map(check, jobs):
            counts[status] += 1
            if status != "ok":
                print(f"{status.upper():4} {os.path.basename(path)} --set {setting}: {why}")
print(f"{counts['ok']} compiled, {counts['skip']} refused by the checker, {counts['fail']} failed "
      f"(of {len(jobs)} configurations)")
sys.exit(1 if counts["fail"] or not counts["ok"] else 0)

#!/usr/bin/env python3
"""lineinfo_check.py TILEC ROOT - every kernel of every example, for sm_80
and sm_90a, printed with --emit-cuda --lineinfo: each `#line N "FILE"`
names the example and a line of it that holds code (not blank, not only a
comment), and every quoting comment `// NAME.tile:N  TEXT` repeats line N
of the file and stands under the directive of that line. Where tilec has
the llvm backend, `--emit-ptx --backend llvm --lineinfo` the same way: its
.file names the example and every .loc a line of it that holds code (or
0, for what belongs to no statement)."""
import glob
import os
import re
import subprocess
import sys

tilec, root = sys.argv[1], sys.argv[2]
fails = 0
checked = 0


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


for path in sorted(glob.glob(os.path.join(root, "examples", "*.tile"))):
    lines = open(path, encoding="utf-8").read().split("\n")
    text = "\n".join(lines)
    args = re.findall(r"^// args: (.*)$", text, re.M)
    args = args[0].split() if args else []
    kernels = re.findall(r"^kernel (\w+)", text, re.M)
    name = os.path.basename(path)
    for arch in ("sm_80", "sm_90a"):
        for k in kernels:
            cmd = [tilec, "--emit-cuda", "--lineinfo", "--arch", arch, "--kernel", k] + args + [path]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                fail("%s %s %s: exit %d: %s" % (name, k, arch, r.returncode, r.stderr.strip()[:200]))
                continue
            out = r.stdout.split("\n")
            body = False
            under = None  # the .tile line of the last directive, None for generated code
            directives = 0
            for i, l in enumerate(out):
                m = re.match(r'#line (\d+) "(.*)"$', l)
                if m:
                    n, f = int(m.group(1)), m.group(2)
                    if f == "tilec-generated":
                        under = None
                        continue
                    directives += 1
                    if os.path.basename(f) != name:
                        fail("%s %s %s: output line %d names %s" % (name, k, arch, i + 1, f))
                    src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
                    if not src or src.startswith("//"):
                        fail("%s %s %s: output line %d points at line %d, which holds no code: %r"
                             % (name, k, arch, i + 1, n, src))
                    under = n
                    continue
                q = re.match(r"\s*// (\S+\.tile):(\d+)  (.*)$", l)
                if q:
                    n = int(q.group(2))
                    want = lines[n - 1].strip() if 0 < n <= len(lines) else None
                    if q.group(1) != name or want is None or not want.startswith(q.group(3).rstrip("\\ ")):
                        fail("%s %s %s: the comment %r does not repeat line %d (%r)" % (name, k, arch, l.strip(), n, want))
                    if under != n:
                        fail("%s %s %s: the comment quoting line %d is under line %s" % (name, k, arch, n, under))
            if directives == 0:
                fail("%s %s %s: no #line directive" % (name, k, arch))
            checked += 1
            cmd = [tilec, "--emit-ptx", "--backend", "llvm", "--lineinfo", "--arch", arch, "--kernel", k] + args + [path]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode == 2 and "without LLVM" in r.stderr:
                continue
            if r.returncode != 0:
                fail("%s %s %s llvm: exit %d: %s" % (name, k, arch, r.returncode, r.stderr.strip()[:200]))
                continue
            files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', r.stdout, re.M))
            if not files or any(os.path.basename(f) != name for f in files.values()):
                fail("%s %s %s llvm: .file names %s" % (name, k, arch, sorted(files.values())))
            locs = re.findall(r"^\s*\.loc\s+(\d+)\s+(\d+)", r.stdout, re.M)
            if not any(int(n) > 0 for _, n in locs):
                fail("%s %s %s llvm: no .loc of a .tile line" % (name, k, arch))
            for f, n in locs:
                n = int(n)
                src = lines[n - 1].strip() if 0 < n <= len(lines) else ""
                if n and (not src or src.startswith("//")):
                    fail("%s %s %s llvm: a .loc points at line %d, which holds no code: %r" % (name, k, arch, n, src))
                    break
            checked += 1
print("%d kernel printouts checked, %d problems" % (checked, fails))
sys.exit(1 if fails else 0)

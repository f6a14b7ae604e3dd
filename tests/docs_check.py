#!/usr/bin/env python3
"""docs_check.py TILEC DOC - the complete programs in the language
reference must check clean, except those of its "Common errors" section,
which must be rejected with a located error (exit 1)."""
import re
import subprocess
import sys
import tempfile

tilec, doc = sys.argv[1], sys.argv[2]
text = open(doc, encoding="utf-8").read()
failures = checked = 0
for m in re.finditer(r"```[a-z]*\n(.*?)```", text, re.S):
    block = m.group(1)
    if not re.search(r"^\s*kernel \w+\(", block, re.M) or "{" not in block:
        continue
    section = re.findall(r"^## (.*)$", text[: m.start()], re.M)
    want_error = bool(section) and "Common errors" in section[-1]
    with tempfile.NamedTemporaryFile("w", suffix=".tile", delete=False) as f:
        f.write(block)
        path = f.name
    p = subprocess.run([tilec, "--check", path], capture_output=True, text=True)
    checked += 1
    ok = (p.returncode == 1 and re.search(r":\d+:\d+: error: ", p.stderr)) if want_error else p.returncode == 0
    if not ok:
        failures += 1
        line = text[: m.start()].count("\n") + 1
        print(f"FAIL {doc}:{line} ({section[-1] if section else 'top'}): exit {p.returncode}\n{p.stderr[:500]}")
print(f"{checked - failures} passed, {failures} failed")
sys.exit(1 if failures or checked == 0 else 0)

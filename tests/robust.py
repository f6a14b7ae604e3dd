#!/usr/bin/env python3
"""robust.py TILEC EXAMPLES_DIR - hostile inputs never crash or hang tilec.

Every input must end with exit 0 or 1 within the time limit; inputs that are
certainly invalid must exit 1 with a located `FILE:LINE:COL: error:` line.
Mutations (truncations, byte flips, deletions) of the examples are seeded,
so a failure reproduces."""
import os
import random
import re
import subprocess
import sys
import tempfile

tilec, examples = sys.argv[1], sys.argv[2]
located = re.compile(rb"^[^\n]*:\d+:\d+: error: ", re.M)
failures = 0
runs = 0


def run(name, data, must_fail=True, args=()):
    global failures, runs
    runs += 1
    with tempfile.NamedTemporaryFile(suffix=".tile", delete=False) as f:
        f.write(data)
        path = f.name
    try:
        p = subprocess.run([tilec, "--check", *args, path], capture_output=True, timeout=20)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        rc, err = "timeout", b""
    finally:
        os.unlink(path)
    ok = rc in (0, 1)
    if must_fail:
        ok = rc == 1 and located.search(err) is not None
    if rc == 1 and not located.search(err) and b"cannot read" not in err:
        ok = False
    if not ok:
        failures += 1
        print(f"FAIL {name}: exit {rc}\n{err[:600].decode('utf-8', 'replace')}")


good = b"kernel k(X: f32[N], out Y: f32[N]) where N = 64 grid(1) as (bx) {\n" \
       b"  for (i) in parallel(N) { Y[i] = X[i]; }\n}\nreference { Y[i] = X[i]; }\n"
run("valid baseline", good, must_fail=False)
run("empty file", b"", must_fail=False)
run("1 MB identifier", b"kernel " + b"a" * (1 << 20) + b"() {}\n")
run("1 MB identifier in body", good.replace(b"Y[i] = X[i]; }", b"Y[i] = " + b"x" * (1 << 20) + b"; }", 1))
run("200000 nested parentheses", b"const c = " + b"(" * 200000 + b"1" + b")" * 200000 + b";\n")
run("200000 nested brackets", b"kernel k() {" + b"{" * 200000 + b"}" * 200000 + b"}\n")
run("1M-term sum", b"const c = " + b"1 + " * 1000000 + b"1;\n")
run("100k unary minus", b"const c = " + b"-" * 100000 + b"1;\n")
run("100k nested ternaries", b"const c = " + b"1 ? 1 : " * 100000 + b"1;\n")
run("NUL bytes", good[:40] + b"\0\0\0" + good[40:])
run("NUL in comment", b"// a\0b\n" + good)
run("invalid UTF-8", good[:50] + b"\xff\xfe\xc0\x80" + good[50:])
run("invalid UTF-8 in comment", b"/* \xe2\x28\xa1 */\n" + good)
run("overlong UTF-8 in string", good.replace(b"Y[i] = X[i]; }", b'print("\xc0\xaf"); }', 1))
run("unterminated comment", good + b"/* never closed")
run("unterminated string", good.replace(b"Y[i] = X[i]; }", b'print("abc); }', 1))
run("huge integer", b"const c = 99999999999999999999999999;\n")
run("huge float", b"const c = 1e999999;\n")
run("overflowing shape", b"kernel k(X: f32[N]) where N = 1 grid(1) as (b) {\n"
    b" let s = alloc_shared([65536, 65536, 65536, 65536], f32);\n}\n")
run("division by zero", b"const c = 1 / 0;\n")
run("INT64_MIN / -1", b"const c = (-9223372036854775807 - 1) / -1;\n")
run("shift overflow", b"const c = 1 << 64;\n")
run("grid too large", b"kernel k() grid(1 << 40) as (b) {}\n")
run("many errors", b"const c = @;\n" * 5000)
run("deep blocks", b"kernel k() {" + b"{" * 300 + b"}" * 300 + b"}\n")
run("only brackets", b"(((((((((((((((((((((")
run("control characters", bytes(range(1, 32)) * 10)
run("17 MiB file", b"// " + b"x" * (17 << 20) + b"\n")

rng = random.Random(1234)
sources = [open(os.path.join(examples, f), "rb").read()
           for f in sorted(os.listdir(examples)) if f.endswith(".tile")]
for i, src in enumerate(sources):
    for cut in sorted(rng.sample(range(1, len(src)), 25)):
        run(f"example {i} truncated at {cut}", src[:cut], must_fail=False)
    for k in range(40):
        b = bytearray(src)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(b))
            op = rng.randrange(3)
            if op == 0:
                b[pos] = rng.randrange(256)
            elif op == 1:
                del b[pos:pos + rng.randint(1, 20)]
            else:
                b[pos:pos] = rng.choice([b"(", b"[", b"{", b"}", b";", b",", b":", b"0", b"-", b"sum(", b"\0"])
        run(f"example {i} mutation {k}", bytes(b), must_fail=False)
print(f"{runs - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)

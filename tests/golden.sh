#!/usr/bin/env bash
# golden.sh TILEC DIR - the golden test runner.
#
# For every DIR/x.tile:
#   x.err present: `tilec --check x.tile` must exit 1 and print exactly x.err;
#   x.ast present: `tilec --emit-ast x.tile` must exit 0 and print exactly x.ast;
#   x.ir present:  the IR after pass P, where DIR is named P, must be x.ir;
#   x.cu present:  `tilec --emit-cuda x.tile` must print exactly x.cu (from
#                  the kernel on, after the pasted device header);
#   x.ll present:  `tilec --emit-llvm x.tile` must print exactly x.ll (the
#                  llvm backend's module before O3);
#   neither:       `tilec --check x.tile` must exit 0 and print nothing.
# A first line `// expect-error: LINE: ...` also requires the first error to
# be on LINE; a line `// args: ...` adds command-line arguments (the
# schedule options included, e.g. --clusters=on) for that file only.
# A file with `// CHECK` lines is left to tests/filecheck.py.
# GOLDEN_UPDATE=1 rewrites the .err/.ast files from the current output.
set -u
tilec_bin=$(realpath "$1")
dir=$2
pass=0
fail=0
cd "$dir" || exit 2
shopt -s nullglob
for f in *.tile; do
    base=${f%.tile}
    grep -q '^[[:space:]]*//[[:space:]]*CHECK' "$f" && continue
    args=$(sed -n 's#^// args: ##p' "$f" | head -1)
    expect_line=$(sed -n '1s#^// expect-error: \([0-9]*\):.*#\1#p' "$f")
    if [ -f "$base.ast" ]; then
        out=$(timeout 20 "$tilec_bin" --emit-ast $args "$f" 2>&1); rc=$?; want=0; golden=$base.ast
    elif [ -f "$base.cu" ]; then
        out=$(timeout 20 "$tilec_bin" --emit-cuda $args "$f" 2>&1 | sed -n '/^extern "C"/,$p'); rc=${PIPESTATUS[0]}
        want=0; golden=$base.cu
    elif [ -f "$base.ll" ]; then
        out=$(timeout 20 "$tilec_bin" --emit-llvm $args "$f" 2>&1); rc=$?; want=0; golden=$base.ll
    elif [ -f "$base.ir" ]; then
        out=$(timeout 20 "$tilec_bin" --print-ir-after="$(basename "$PWD")" --emit-cuda $args "$f" 2>&1 >/dev/null); rc=$?
        want=0; golden=$base.ir
    else
        out=$(timeout 20 "$tilec_bin" --check $args "$f" 2>&1); rc=$?
        if [ -f "$base.err" ] || [ -n "$expect_line" ]; then want=1; golden=$base.err; else want=0; golden=; fi
    fi
    problem=
    if [ "$rc" != "$want" ]; then
        problem="exit code $rc, expected $want"
    elif [ -n "$expect_line" ]; then
        got=$(printf '%s\n' "$out" | grep -m1 ': error: ' | cut -d: -f2)
        [ "$got" = "$expect_line" ] || problem="first error on line ${got:-none}, expected line $expect_line"
    fi
    if [ -z "$problem" ] && [ -n "$golden" ]; then
        if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
            printf '%s\n' "$out" > "$golden"
        elif [ ! -f "$golden" ]; then
            problem="missing $golden (run with GOLDEN_UPDATE=1)"
        elif ! diff -u "$golden" <(printf '%s\n' "$out") > /tmp/golden.diff.$$; then
            problem="output differs from $golden:
$(head -40 /tmp/golden.diff.$$)"
        fi
    elif [ -z "$problem" ] && [ -n "$out" ]; then
        problem="unexpected output:
$out"
    fi
    if [ -n "$problem" ]; then
        fail=$((fail + 1))
        printf 'FAIL %s/%s: %s\n' "$dir" "$f" "$problem"
    else
        pass=$((pass + 1))
    fi
done
rm -f /tmp/golden.diff.$$
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]

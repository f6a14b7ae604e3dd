#!/usr/bin/env bash
# replay.sh TILEC - every input under regressions/ (fuzzer findings and hostile inputs)
# must now end with exit 0 or 1, under the time limit.
set -u
tilec=$1
dir=$(dirname "$0")/regressions
pass=0
fail=0
for f in "$dir"/*; do
    [ -f "$f" ] || continue
    timeout 20 "$tilec" --check "$f" > /dev/null 2>&1
    rc=$?
    if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $f: exit $rc"; fi
    timeout 20 "$tilec" --emit-cuda "$f" > /dev/null 2>&1
    rc=$?
    if [ "$rc" = 0 ] || [ "$rc" = 1 ] || [ "$rc" = 2 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL --emit-cuda $f: exit $rc"; fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

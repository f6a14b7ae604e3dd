#!/usr/bin/env bash
# replay.sh TILEC [CORPUS_DIR...] - every input under regressions/ (fuzzer
# findings and hostile inputs) must now end with exit 0 or 1, under the
# time limit; generating code for them may also refuse (2). Where tilec has
# the llvm backend, the regressions and every .tile under the corpus
# directories (the fuzzer's seeds) also go through it without a crash.

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
if "$tilec" --backend llvm --version > /dev/null 2>&1; then
    shift
    for f in "$dir"/* $(find "$@" -name '*.tile' 2> /dev/null | sort); do
        [ -f "$f" ] || continue
        for arch in sm_80 sm_90a; do
            timeout 20 "$tilec" --check --backend llvm --arch $arch "$f" > /dev/null 2>&1
            rc=$?
            if [ "$rc" = 0 ] || [ "$rc" = 1 ] || [ "$rc" = 2 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL --backend llvm --arch $arch $f: exit $rc"; fi
        done
    done
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

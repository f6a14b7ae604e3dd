#!/bin/sh
# expect_fail.sh FILECHECK.PY ARGS... - passes when `filecheck.py ARGS` runs
# to its end on one failing file ("0 passed, 1 failed") and exits 1.
out=$(python3 "$@")
rc=$?
printf '%s\n' "$out"
[ "$rc" = 1 ] && printf '%s\n' "$out" | grep -qx '0 passed, 1 failed'

#!/usr/bin/env bash
# ab.sh OUT ROUNDS SPEC... - an A/B of tilec binaries (or settings) on the
# GPU machine: every SPEC once per round, in the order given, so that the
# variants alternate and share the card's thermal state. One line per run:
# round, label, exit code, median and min, the --compare ratio, the SM clock
# and its throttled samples, and the median at full clock where only some
# samples had it. The full reports go to OUT/LABEL.ROUND.txt.
#
# SPEC is "label|binary|example|--set values|extra options|VAR=value ...",
# e.g. "whole|build/tilec|gemm|M=3000,N=2000,K=1000|--compare cublas --halves=off" (the
# last field, environment variables, is rarely needed: schedule choices are
# options).
set -u
out=$1
rounds=$2
shift 2
mkdir -p "$out"
here=$(dirname "$0")
for round in $(seq 1 "$rounds"); do
    for spec in "$@"; do
        IFS='|' read -r label bin file values extra envs <<< "$spec"
        f="$out/$label.$round.txt"
        # shellcheck disable=SC2086
        env $envs TILEC_CACHE_DIR="$out/cache.$(echo "$bin" | tr / _)" timeout 120 "$bin" --profile --consistency 1 \
            ${values:+--set "$values"} $extra "$here/../examples/$file.tile" > "$f" 2>&1
        rc=$?
        median=$(grep -m1 '^  median' "$f" | sed 's/ (min/ | min/; s/, p95.*//')
        ratio=$(grep -m1 -E 'speedup|Close the gap' "$f" | grep -oE '[0-9.]+x' | head -1)
        clock=$(grep -m1 'SM clock' "$f" | grep -oE '[0-9]+ MHz median|[0-9]+ throttled' | tr '\n' ' ')
        full=$(grep -m1 '^  full clock' "$f" | sed 's/^  full clock *//')
        echo "$round $label rc=$rc $median | ${ratio:--} | $clock${full:+| full clock: $full}"
    done
done

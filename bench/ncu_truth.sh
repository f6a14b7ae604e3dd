#!/usr/bin/env bash
# ncu_truth.sh TILEC FILE.tile [tilec args...] - tilec's median against
# Nsight Compute's gpu__time_duration for the same kernel (clocks left as
# found: --clock-control none; ncu flushes caches between its replays, as
# tilec flushes L2 between samples).
set -u
tilec=$1
shift
ours=$("$tilec" --profile --consistency 0 --json /tmp/ncu_truth.json "$@" 2>&1 | grep -m1 "median")
ncu_out=$(ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum -k regex:tilec_ \
              --launch-skip 5 --launch-count 30 --csv "$tilec" --profile --consistency 0 --max-time 1 "$@" 2>/dev/null)
median=$(printf '%s\n' "$ncu_out" | grep gpu__time_duration | awk -F'","' '{gsub(/"/,"",$NF); gsub(/,/,"",$NF); print $NF}' | sort -g |
         awk '{v[NR]=$1} END {if (NR) print (NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2)}')
unit=$(printf '%s\n' "$ncu_out" | grep -m1 gpu__time_duration | awk -F'","' '{print $(NF-1)}')
echo "tilec: $ours"
echo "ncu gpu__time_duration median over 30 launches: $median $unit"

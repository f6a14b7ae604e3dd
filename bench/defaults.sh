#!/usr/bin/env bash
# defaults.sh OUT [EXAMPLE...] - issue 36's "defaults per architecture": for
# each example with tune lists (all by default), --autotune at its default
# sizes on this GPU, which prints the default configuration's time beside
# the best's; one line per example: the best, the default and their ratio
# (goal: the default within 5 % of the best, 1.05x). Full logs and the
# --json of every search go to OUT. Run on the GPU machine after ./build.sh;
# each search takes from seconds to minutes (the GEMMs' 54 configurations).
set -u
out=$1
shift
mkdir -p "$out"
here=$(dirname "$0")
files=("$@")
[ ${#files[@]} -gt 0 ] || files=($(grep -l ' in \[' "$here"/../examples/*.tile | xargs -n1 basename | sed 's/\.tile$//'))
for name in "${files[@]}"; do
    f="$here/../examples/$name.tile"
    pick=()
    if grep -q '^pipeline ' "$f"; then  # a pipeline is tuned a stage at a time: its first with tune lists
        pick=(--kernel "$(awk '/^kernel /{split($2, n, "("); name = n[1]} /^ +tune /{print name; exit}' "$f")")
    fi
    TILEC_CACHE_DIR="$out/cache" timeout 600 "$here/../build/tilec" --autotune "${pick[@]}" --json "$out/$name.json" "$f" \
        > "$out/$name.txt" 2>&1
    rc=$?
    best=$(grep -m1 ': best ' "$out/$name.txt" | sed 's/.*: best //; s/ (.*//')
    dflt=$(grep -m1 ': the default ' "$out/$name.txt" | sed 's/.*: the default //')
    echo "$name rc=$rc | best $best | default $dflt"
done

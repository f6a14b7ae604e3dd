#!/usr/bin/env bash
# codegen_unchanged.sh TILEC OUT [BASELINE] - the check refactors rely on:
# writes the generated CUDA C of every kernel of every program of the
# repository (examples and test programs; the frontend's invalid ones
# excepted) for sm_80 and sm_90a into OUT, one file each, and the same
# again under each schedule option below for the programs that take the
# Hopper path. With BASELINE (an OUT written by another build), compares
# the two trees and fails on any difference.
#
#   tests/codegen_unchanged.sh build-old/tilec /tmp/before
#   tests/codegen_unchanged.sh build/tilec /tmp/after /tmp/before
#
# A program's `// args:` (or filecheck.py's `// RUN-ARGS:`) line is passed
# as the golden runner passes it.
set -u
tilec=$(realpath "$1")
out=$2
baseline=${3:-}
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"
mkdir -p "$out"

# The schedule options of the sm_90a path, each tried on the programs
# that have a warp-specialised loop.
variants=(
    "--clusters=on"
    "--clusters=off"
    "--persistent=on"
    "--persistent=off"
    "--split=off"
    "--split=4"
    "--halves=off"
    "--longest-first=off"
    "--idle-warpgroups=off"
    "--idle-warpgroups=skip"
)

files=$(cd "$root" && ls examples/*.tile tests/codegen/*.tile tests/passes/*/*.tile tests/frontend/valid/*.tile \
    tests/frontend/ast/*.tile)
n=0
for f in $files; do
    args=$(sed -n 's#^// \(args\|RUN-ARGS\): ##p' "$root/$f" | head -1)
    name=$(echo "$f" | tr / _)
    for k in $(sed -n 's/^kernel \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$root/$f"); do
        for arch in sm_80 sm_90a; do
            dst="$out/$name.$k.$arch.cu"
            # shellcheck disable=SC2086
            "$tilec" --emit-cuda --no-cache --arch "$arch" --kernel "$k" $args "$root/$f" > "$dst" 2>&1
            echo "exit $?" >> "$dst"
            n=$((n + 1))
            [ "$arch" = sm_90a ] && grep -q 'tl_producer\|setmaxnreg' "$dst" || continue
            for v in "${variants[@]}"; do
                # shellcheck disable=SC2086
                "$tilec" --emit-cuda --no-cache --arch "$arch" --kernel "$k" $args $v "$root/$f" \
                    > "$dst.${v#--}.cu" 2>&1
                echo "exit $?" >> "$dst.${v#--}.cu"
                n=$((n + 1))
            done
        done
    done
done
echo "codegen_unchanged: $n outputs in $out"
[ -z "$baseline" ] && exit 0
if diff -r -q "$baseline" "$out" > "$out.diff"; then
    echo "codegen_unchanged: identical to $baseline"
    exit 0
fi
echo "codegen_unchanged: $(wc -l < "$out.diff") outputs differ from $baseline:"
head -40 "$out.diff"
exit 1

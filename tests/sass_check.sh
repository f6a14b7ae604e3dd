#!/usr/bin/env bash
# sass_check.sh TILEC ROOT - the machine code of the GEMM examples takes the
# path it should: on sm_90a wgmma (HGMMA, fp8: QGMMA) fed by TMA (UTMALDG) and storing
# through TMA (UTMASTG), on sm_80
# mma.sync (HMMA) fed by cp.async (LDGSTS), never a spill (STL/LDL), for the
# default tiles. Needs cuobjdump, not a GPU; exits 77 (skipped) without it.
set -u
tilec=$1
root=$2
if ! command -v cuobjdump > /dev/null && [ ! -x /usr/local/cuda/bin/cuobjdump ]; then
    echo "no cuobjdump"; exit 77
fi
fail=0
count() { printf '%s\n' "$1" | sed -n 's#^// tilec: ##p' | tr ',' '\n' | awk -v k="$2" '$1 == k { print $2 }'; }
# (gemm_fp8 on sm_90a only: sm_80 has no fp8 tensor cores; its wgmma is QGMMA)
for f in gemm gemm_bf16 gemm_bias_gelu gemm_fp8; do
    for arch in sm_90a sm_80; do
        [ $f = gemm_fp8 ] && [ $arch = sm_80 ] && continue
        out=$("$tilec" --emit-sass --no-cache --arch "$arch" "$root/examples/$f.tile" 2>&1) || { echo "FAIL $f $arch: exit $?"; fail=1; continue; }
        if [ $f = gemm_fp8 ]; then mma=QGMMA; copy=UTMALDG; elif [ "$arch" = sm_90a ]; then mma=HGMMA; copy=UTMALDG; else mma=HMMA; copy=LDGSTS; fi
        m=$(count "$out" $mma); c=$(count "$out" $copy); s=$(( $(count "$out" STL) + $(count "$out" LDL) ))
        st=$(count "$out" UTMASTG)
        if [ "$arch" = sm_90a ] && [ "${st:-0}" = 0 ]; then
            echo "FAIL $f $arch: no TMA store (UTMASTG): $(printf '%s\n' "$out" | tail -1)"; fail=1
        elif [ "${m:-0}" -gt 0 ] && [ "${c:-0}" -gt 0 ] && [ "$s" = 0 ]; then
            echo "ok   $f $arch: $mma $m, $copy $c, UTMASTG ${st:-0}, no spills"
        else
            echo "FAIL $f $arch: $(printf '%s\n' "$out" | tail -1)"; fail=1
        fi
    done
done
exit $fail

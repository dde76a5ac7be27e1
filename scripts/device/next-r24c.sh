#!/bin/bash
# Round 24, call 3. Kit: KIT_B=4379c91 bash scripts/device/kit.sh (fzwgpu-b: main before
#   round 24's kernels). main: szx-compact-vec4 + range-final-unrolled landed (both
#   backends), chain_encode's COALESCE variant (CUDA's default) keeps the walk's
#   previous step in workgroup memory (call 2 measured the patch: CUDA 2-D 842 / 743 ->
#   926 / 768, one round).
# 1. A/B main / fzwgpu-b: chain presets on the 2-D 1 GiB field through CUDA (twice), szx
#    on it through both backends
# 2. validation of main: szx through both backends, the chain presets through CUDA
source .device/setup.sh
b() { # binary backend fields-args label presets
  left ${LEFT:-110} || return 0
  timeout 45 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets $5 --json $OUT/r24c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for r in 1; do for x in fzwgpu fzwgpu-b; do b $x cuda "--size 1G --fields smooth" 2d-$r szp_composed,szp_centered; done; done
for x in fzwgpu fzwgpu-b; do b $x wgpu "--size 1G --fields smooth" 2d szx; b $x cuda "--size 1G --fields smooth" 2d szx; done
echo "ab done $(( $(date +%s) - T0 )) s"
VAL_LEFT=170 val r24c-szx /tmp/ct/fzwgpu "szx" 35
# the chain presets through CUDA on fields chain_encode (the 2-D form) takes: the 2-D
# field and 3-D fields viewed as 2-D with rows of whole units of 32 (float32: the
# COALESCE variant is float32's)
for f in sperr_vorticity_512x512:512x512 cesm_camfv_TS_10x192x288:288x1920 cesm_camfv_PRECT_10x192x288:288x1920 sperr_vorticity_41x128x128:128x5248; do
  for p in szp_composed szp_centered; do for rel in 1e-2 1e-3 1e-4; do
    left 235 || break 3
    o=$(timeout 20 /tmp/ct/fzwgpu eval --backend cuda -i /tmp/data/${f%%:*}.f32 --dims ${f##*:} --preset $p --eb $rel --mode noa --json --repeat 2 --compare-cpu 2>&1) && echo "$p $f $rel $(echo "$o" | tail -1)" >> $OUT/r24c-chain-val-cuda.log || echo "FAIL $p $f $rel: $o" >> $OUT/r24c-chain-val-cuda.log
  done; done
done
echo "validation chain cuda: $(grep -cE '^sz' $OUT/r24c-chain-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r24c-chain-val-cuda.log) failed"
grep '^FAIL' $OUT/r24c-chain-val-cuda.log | cut -c1-200 | head -3
echo "total $(( $(date +%s) - T0 )) s"

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
  left ${LEFT:-200} || return 0
  timeout 45 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets $5 --json $OUT/r24c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for r in 1 2; do for x in fzwgpu fzwgpu-b; do b $x cuda "--size 1G --fields smooth" 2d-$r szp_composed,szp_centered; done; done
for x in fzwgpu fzwgpu-b; do b $x wgpu "--size 1G --fields smooth" 2d szx; b $x cuda "--size 1G --fields smooth" 2d szx; done
echo "ab done $(( $(date +%s) - T0 )) s"
VAL_LEFT=300 val r24c-szx /tmp/ct/fzwgpu "szx" 40
B=/tmp/ct/fzwgpu EXTRA="--backend cuda" PRESETS="szp_composed szp_centered" timeout 40 bash .device/validation.sh > $OUT/r24c-chain-val-cuda.log 2>&1
echo "validation chain cuda: $(grep -cE '^sz' $OUT/r24c-chain-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r24c-chain-val-cuda.log) failed"
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 24, call 2. Kit: KIT_B=scripts/device/patches/chain-walk-shared.patch
#   KIT_C=<szx-compact-vec4.patch + range-final-unrolled.patch applied together>
#   bash scripts/device/kit.sh
#   fzwgpu-b: chain_encode / chain_decode keep their 32 values of walk state per
#   invocation in workgroup memory instead of registers (NVRTC: chain_encode 128 -> 78,
#   chain_decode 96 -> 62 without COALESCE; the 1-D forms unchanged).
#   fzwgpu-c: szx_compact searches once per 16-byte piece, szx_range_final folds eight
#   parts per step with no loop.
# Runs on whatever card comes (H100 in round 24): only A/B within this call counts.
# 1. main / fzwgpu-b: chain presets on the 2-D 1 GiB field (Vulkan, CUDA) and CESM TS
#    tiled to 256 MiB (Vulkan); main / fzwgpu-c: szx on the 2-D field (both backends)
# 2. the same once more, alternating
# 3. validation of fzwgpu-b's chain presets and fzwgpu-c's szx while time is left
source .device/setup.sh
b() { # binary backend fields-args label presets
  left ${LEFT:-420} || return 0
  timeout 60 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets $5 --json $OUT/r24b-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for r in 1 2; do
  for x in fzwgpu fzwgpu-b; do b $x wgpu "--size 1G --fields smooth" 2d-$r szp_composed,szp_centered; done
  for x in fzwgpu fzwgpu-b; do b $x cuda "--size 1G --fields smooth" 2d-$r szp_composed,szp_centered; done
  for x in fzwgpu fzwgpu-b; do b $x wgpu "--size 256M --fields tiled" tiled-$r szp_composed,szp_centered; done
  for x in fzwgpu fzwgpu-c; do b $x wgpu "--size 1G --fields smooth" 2d-$r szx; b $x cuda "--size 1G --fields smooth" 2d-$r szx; done
done
echo "ab done $(( $(date +%s) - T0 )) s"
VAL_LEFT=500 val r24b-b /tmp/ct/fzwgpu-b "szp_composed szp_centered" 60
VAL_LEFT=540 val r24b-c /tmp/ct/fzwgpu-c "szx" 30
echo "total $(( $(date +%s) - T0 )) s"

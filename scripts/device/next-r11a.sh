#!/bin/bash
# Round 11, call 1 (run 2026-12-03, 435 s; the patch's encode half is merged since
# 0cb56bd, its decode half is patches/chain-decode-guards.patch): chain-guards (fzwgpu-b; build the
# kit with KIT_B=scripts/device/patches/chain-guards.patch) against main: the chain
# presets through CUDA and Vulkan, 2-D (1 GiB) twice and 1-D once, alternating; then
# fzwgpu-b's validation of the two chain presets through both backends (archives and
# reconstructions byte for byte against the cpu backend, every real field, 3 bounds,
# f32 and f64). If it wins and validates: merge the patch, rebuild the kit and run
# suite.sh (its test binaries then carry the change through CUDA).
source .device/setup.sh
ab() { # label binary backend field
  left 330 || return 0
  timeout 60 $2 bench --backend $3 $4 --reps 3 --presets szp_composed,szp_centered --json $OUT/r11a-$1-$3.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $3 $4" '{print t, $1, "compress", $3, "decompress", $6}'
}
for r in 1 2; do for be in cuda wgpu; do
  ab main /tmp/ct/fzwgpu $be "--size 1G --fields smooth"; ab guards /tmp/ct/fzwgpu-b $be "--size 1G --fields smooth"
done; done
for be in cuda wgpu; do ab main /tmp/ct/fzwgpu $be "--dims 268435456"; ab guards /tmp/ct/fzwgpu-b $be "--dims 268435456"; done
for be in cuda wgpu; do left 470 || break
  B=/tmp/ct/fzwgpu-b EXTRA="--backend $be" PRESETS="szp_composed szp_centered" timeout 120 bash .device/validation.sh > $OUT/r11a-val-$be.log 2>&1
  echo "validation guards $be: $(grep -cE '^sz' $OUT/r11a-val-$be.log) passed, $(grep -c '^FAIL' $OUT/r11a-val-$be.log) failed"
  grep '^FAIL' $OUT/r11a-val-$be.log | cut -c1-160 | head -3
done
echo "total $(( $(date +%s) - T0 )) s"

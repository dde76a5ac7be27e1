#!/bin/bash
# Invocation-per-unit chain_encode/chain_decode with adaptive walks: twins, benches
# (1 GiB 2-D/1-D, CESM TS tiled, 512x512), cut builds of chain_encode (fz-cut,
# FZWGPU_CUT: 1 = no packing, 2 = no quantization (codes = bits >> 20), 3 = both;
# diagnostic, wrong archives), naga loop counters off (diagnostic), and validation.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode chain_kernels quant 2>&1 | grep -E "differs|test result|panicked"
echo "== bench auto"
$B bench --size 1G --reps 3 --presets szp_composed,szp_centered --json $OUT/chain3.jsonl 2>&1 | grep -E "^sz|copy"
$B bench --dims 268435456 --reps 3 --presets szp_composed,szp_centered --json $OUT/chain3.jsonl 2>&1 | grep -E "^sz"
echo "== CESM TS tiled 256M (auto)"
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed,szp_centered --json $OUT/chain3.jsonl 2>&1 | grep -E "^sz"
echo "== 512x512: auto, force, off"
for mode in auto force off; do
  $B bench -i .device/data/sperr_vorticity_512x512.f32 --dims 512x512 --reps 3 --presets szp_composed,szp_centered --fusion $mode 2>&1 | grep -E "^sz"
done
echo "== cut builds (compress kernel only meaningful)"
for c in 0 1 2 3; do
  echo "-- cut $c"
  FZWGPU_CUT=$c .device/fz-cut bench --size 1G --reps 3 --presets szp_composed --fusion force 2>&1 | grep -E "^sz"
  FZWGPU_CUT=$c .device/fz-cut bench --dims 268435456 --reps 3 --presets szp_composed --fusion force 2>&1 | grep -E "^sz"
done
echo "== noloop (diagnostic)"
FZWGPU_SHADER_CHECKS=noloop $B bench --size 1G --reps 3 --presets szp_composed --fusion force 2>&1 | grep -E "^sz"
PRESETS="szp_composed szp_centered" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

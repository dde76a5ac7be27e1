#!/bin/bash
# chain_encode with the Quantizer's outlier mask folded in (quant_encode skipped),
# quant_scatter per mask word, one-pass chain_decode (1-D/2-D); kernel twins, benches,
# profile, validation of the chain presets against the cpu backend.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode chain_kernels quant 2>&1 | grep -E "differs|test result|panicked"
echo "== profile 2-D"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 10 --presets szp_composed --fusion force 2>&1 | grep -E "^szp|profile:" | tail -30
echo "== profile 1-D"
FZWGPU_PROFILE=1 $B bench --dims 268435456 --reps 1 --warmup 0 --replays 10 --presets szp_centered --fusion force 2>&1 | grep -E "^szp|profile:" | tail -30
for mode in auto off; do
  echo "== bench fusion=$mode"
  $B bench --size 1G --reps 3 --presets szp_composed,szp_centered --fusion $mode --json $OUT/chain2-$mode.jsonl 2>&1 | grep -E "^sz|copy"
  $B bench --dims 268435456 --reps 3 --presets szp_composed,szp_centered --fusion $mode --json $OUT/chain2-$mode.jsonl 2>&1 | grep -E "^sz"
done
echo "== CESM TS tiled 256M"
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed,szp_centered --json $OUT/chain2-cesm.jsonl 2>&1 | grep -E "^sz"
echo "== small 2-D decode: fused (force) vs staged"
for mode in force off; do
  $B bench -i .device/data/sperr_vorticity_512x512.f32 --dims 512x512 --reps 3 --presets szp_composed,szp_centered --fusion $mode 2>&1 | grep -E "^sz"
done
PRESETS="szp_composed szp_centered" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

#!/bin/bash
# Quantizer floor without a rounding instruction (truncate, correct by a compare):
# A/B against the previous build (fz-prev) in one session, twins, validation of the
# presets that quantize.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode quant 2>&1 | grep -E "differs|test result|panicked"
for v in fz-prev fzwgpu fz-prev fzwgpu; do
  echo "== $v"
  .device/$v bench --size 1G --reps 3 --presets szp_composed,szp_centered --json $OUT/chain5-$v.jsonl 2>&1 | grep -E "^sz"
  .device/$v bench --dims 268435456 --reps 3 --presets szp_composed --json $OUT/chain5-$v.jsonl 2>&1 | grep -E "^sz"
done
PRESETS="szp_composed szp_centered szp" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

#!/bin/bash
# NOT YET RUN (written 2026-12-03 after the device budget was spent; folded into
# h200-cuda5.sh, which runs it with the carried binary): measure and
# validate chain_encode with blocks straddling rows (szp_composed on 288/480-wide
# fields) on the H200. Run from the repository root with the binaries in .device/
# (see ../shared/device/README.md), as for h200-chain4.sh.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode 2>&1 | grep -E "differs|test result|panicked"
for e in on off; do
  echo "== FZWGPU_CHAIN_ENCODE=$e (off: the staged kernels auto used before)"
  FZWGPU_CHAIN_ENCODE=$e $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed --json $OUT/straddle-$e.jsonl 2>&1 | grep -E "^sz"
  FZWGPU_CHAIN_ENCODE=$e $B bench --dims 8160x32896 --reps 3 --presets szp_composed --json $OUT/straddle-$e.jsonl 2>&1 | grep -E "^sz"
done
PRESETS="szp_composed" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

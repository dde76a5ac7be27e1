#!/bin/bash
# Quantizer value path without flushes (step >= 2^-96): twins, benches, validation of
# every preset that quantizes (szp_composed, szp_centered, szp) against the cpu backend.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode chain_kernels quant szp 2>&1 | grep -E "differs|test result|panicked"
echo "== bench auto"
$B bench --size 1G --reps 3 --presets szp_composed,szp_centered,szp --json $OUT/chain4.jsonl 2>&1 | grep -E "^sz|copy"
$B bench --dims 268435456 --reps 3 --presets szp_composed,szp_centered --json $OUT/chain4.jsonl 2>&1 | grep -E "^sz"
echo "== CESM TS tiled 256M (auto)"
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed,szp_centered --json $OUT/chain4.jsonl 2>&1 | grep -E "^sz"
echo "== 512x512 auto"
$B bench -i .device/data/sperr_vorticity_512x512.f32 --dims 512x512 --reps 3 --presets szp_composed,szp_centered --json $OUT/chain4.jsonl 2>&1 | grep -E "^sz"
echo "== profile 2-D"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 1 --replays 20 --presets szp_composed 2>&1 | grep -E "profile:" | tail -22
PRESETS="szp_composed szp_centered szp" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

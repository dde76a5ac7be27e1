#!/bin/bash
# One-pass chain_encode (+ chain_compact) against the two-pass fused kernels
# (FZWGPU_CHAIN_ENCODE=off) and the staged stages, on the H200; kernel twins and the
# chain presets validated against the cpu backend.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
.device/kernels-test --test-threads 1 chain_encode chain_kernels 2>&1 | grep -E "differs|test result|panicked"
echo "== profile 2-D encode"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szp_composed,szp_centered --fusion force 2>&1 | grep -E "^szp|profile:  " | tail -16
for mode in "force" "off"; do
  echo "== bench fusion=$mode (encode on)"
  $B bench --size 1G --reps 3 --presets szp_composed,szp_centered --fusion $mode --json $OUT/chain-$mode.jsonl 2>&1 | grep -E "^sz|copy"
  $B bench --dims 268435456 --reps 3 --presets szp_composed,szp_centered --fusion $mode --json $OUT/chain-$mode.jsonl 2>&1 | grep -E "^sz"
done
echo "== bench fusion=force, encode off (chain_width + chain_pack)"
FZWGPU_CHAIN_ENCODE=off $B bench --size 1G --reps 3 --presets szp_composed,szp_centered --fusion force --json $OUT/chain-old.jsonl 2>&1 | grep -E "^sz"
for w in 8 128; do
  echo "== walk $w"
  FZWGPU_CHAIN_WALK=$w $B bench --size 1G --reps 3 --presets szp_composed --fusion force 2>&1 | grep -E "^sz"
done
echo "== 1-D profile"
FZWGPU_PROFILE=1 $B bench --dims 268435456 --reps 1 --warmup 0 --replays 5 --presets szp_centered --fusion force 2>&1 | grep -E "profile:  " | tail -8
PRESETS="szp_composed szp_centered" NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE"

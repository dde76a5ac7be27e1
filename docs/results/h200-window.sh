#!/bin/bash
# Fused forward chain with windowed quantization (each neighbour code quantized once
# per window) against the staged kernels: 2-D, 1-D and 3-D fields, kernel GB/s.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for fu in force off; do
  $B bench --size 1G --reps 3 --replays 10 --presets szp_composed,szp_centered --fusion $fu --json $OUT/window.jsonl 2>&1 | grep -E "^sz|fzwgpu bench"
  $B bench --dims 1024x1024x256 --reps 3 --replays 10 --presets szp_composed,szp_centered --fusion $fu --json $OUT/window.jsonl 2>&1 | grep -E "^sz|fzwgpu bench"
  $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szp_composed,szp_centered --reps 3 --replays 10 --fusion $fu --json $OUT/window.jsonl 2>&1 | grep -E "^sz|fzwgpu bench"
done
$B bench --dims 268435456 --reps 3 --replays 10 --presets szp_composed,szp_centered --fusion force --json $OUT/window.jsonl 2>&1 | grep -E "^sz|fzwgpu bench"
echo "== profile 2-D 1 GiB fused"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --replays 0 --presets szp_composed --fusion force 2>&1 | grep -E "profile" | head -24
echo ALL_DONE

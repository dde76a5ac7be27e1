#!/bin/bash
# wgpu shader runtime checks: full (default) vs without naga's loop-bounding counters,
# 1 GiB 2-D, kernel GB/s (default 20 replays), then per-kernel profiles of both.
source .device/vulkan-env.sh
B=.device/fzwgpu
for c in full noloop; do
echo "== FZWGPU_SHADER_CHECKS=$c"
FZWGPU_SHADER_CHECKS=$c $B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/checks-$c.jsonl 2>&1 | grep -E "^sz|copy|adapter"
done
for c in full noloop; do
echo "== profile $c"
FZWGPU_SHADER_CHECKS=$c FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szx,szp_composed 2>&1 | grep -E "profile"
done

#!/bin/bash
# Fused against staged chain kernels on the H200 (same archives): 1 GiB 2-D and 1-D.
source .device/vulkan-env.sh
B=.device/fzwgpu
for fu in off auto; do
  $B bench --size 1G --reps 3 --replays 10 --presets szp_composed,szp_centered --fusion $fu --json $OUT/fusion.jsonl
done
$B bench --dims 268435456 --reps 3 --replays 10 --presets szp_composed,szp_centered --fusion off --json $OUT/fusion.jsonl

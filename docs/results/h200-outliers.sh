#!/bin/bash
# Quantizer outliers as mask bits + per-workgroup counts: chain presets, 1 GiB 2-D (fusion auto/force/off) and 1-D, kernel and e2e GB/s.
source .device/vulkan-env.sh
B=.device/fzwgpu
for fu in auto force off; do
$B bench --size 1G --reps 3 --presets szp_composed,szp_centered --fusion $fu --json $OUT/outl.jsonl 2>&1 | grep -E "^sz"
done
$B bench --dims 268435456 --reps 3 --presets szp_composed,szp_centered,szx --json $OUT/outl.jsonl 2>&1 | grep -E "^sz|copy"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --replays 0 --presets szp_composed --fusion force 2>&1 | grep -E "profile" | head -9

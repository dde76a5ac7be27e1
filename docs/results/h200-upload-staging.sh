#!/bin/bash
# Uploads through the persistent double-buffered staging pair: 1 GiB 2-D, e2e against the copy bandwidth (same build, same run).
source .device/vulkan-env.sh
B=.device/fzwgpu
$B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/up.jsonl 2>&1 | grep -E "^sz|copy"

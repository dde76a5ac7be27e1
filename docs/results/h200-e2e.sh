#!/bin/bash
# End-to-end against the copy bandwidth of the same run: 1 GiB float32 2-D and 1-D,
# szx and the SZp chains; phases (upload/device/download/host) in the JSON.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$B bench --size 1G --reps 3 --replays 10 --presets szx,szp_composed,szp_centered --json $OUT/e2e.jsonl 2>&1
$B bench --dims 268435456 --reps 3 --replays 10 --presets szx,szp_centered --json $OUT/e2e.jsonl 2>&1
echo ALL_DONE

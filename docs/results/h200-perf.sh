#!/bin/bash
# H200 performance run: kernel times on a resident 1 GiB float32 field (2-D 8192 x 32768
# and 1-D), end-to-end times host to host, JSON lines into $OUT/bench.jsonl.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
$B bench --size 1G --reps 5 --json $OUT/bench.jsonl
$B bench --dims 268435456 --reps 5 --json $OUT/bench.jsonl
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --reps 5 --json $OUT/bench.jsonl
# per-kernel breakdown (every dispatch in its own timed pass; replays keep the clocks up)
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szx,szp_composed,szp_centered > $OUT/profile.log 2>&1

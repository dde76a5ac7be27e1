#!/bin/bash
# Host path (download staging pair, parallel copies and CRCs, outputs read in place)
# and the range kernels (64 values per invocation, 4 loads in flight): the previous
# commit (old) against this build (new) in one run; szx_encode cut builds (diagnostic:
# cut2 = no packing, cut1 = min/max only; wrong archives) under the profiler.
source .device/vulkan-env.sh
nproc; grep -m1 "model name" /proc/cpuinfo; cat /sys/kernel/mm/transparent_hugepage/enabled
for B in old new; do
  echo "== $B"
  .device/fz-$B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/host-$B.jsonl 2>&1 | grep -E "^sz|copy|adapter"
done
.device/fz-new bench --dims 268435456 --reps 3 --presets szx --json $OUT/host-new.jsonl 2>&1 | grep -E "^sz|copy"
for B in old new cut2 cut1; do
  echo "== profile $B"
  FZWGPU_PROFILE=1 .device/fz-$B bench --size 1G --reps 1 --warmup 0 --replays 3 --presets szx 2>&1 | grep -E "^szx|profile:   szx_(range|encode|compact)" | tail -8
done
echo "== profile new, noloop"
FZWGPU_SHADER_CHECKS=noloop FZWGPU_PROFILE=1 .device/fz-new bench --size 1G --reps 1 --warmup 0 --replays 3 --presets szx 2>&1 | grep -E "^szx|profile:   szx_(range|encode|compact)" | tail -8

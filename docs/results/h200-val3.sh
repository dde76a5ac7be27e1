#!/bin/bash
# The committed host-path/range build (4ab3d54): every preset validated against the cpu
# backend (f32 and f64, 3 bounds, 12 fields), bench 2-D/1-D, decode phases; then the
# szx_encode prefetch depth (d1 = committed, d2, d3 blocks ahead) under the profiler.
source .device/vulkan-env.sh
B=.device/fzwgpu
NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
$B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/val3.jsonl 2>&1 | grep -E "^sz|copy|adapter"
$B bench --dims 268435456 --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/val3.jsonl 2>&1 | grep -E "^sz|copy"
for v in fzwgpu fz-d2 fz-d3; do
  for g in 4096 16384; do
    echo "== $v groups $g"
    FZWGPU_ENCODE_GROUPS=$g FZWGPU_PROFILE=1 .device/$v bench --size 1G --reps 1 --warmup 0 --replays 3 --presets szx 2>&1 | grep -E "^szx|profile:   szx_encode" | tail -3
  done
done

#!/bin/bash
# szx_encode with every vec4 component addressed statically and branch-free bit
# pieces, compress reading the archived outputs straight into the archive, parallel
# SZx meta scan (fz-static) against the previous commit 4ab3d54 (fzwgpu); kernel twins
# and szx validation (72 evals) of fz-static on the H200.
source .device/vulkan-env.sh
.device/kernels-test --test-threads 1 szx_kernels_match_twins_random szx_encode_magnitude_edges range 2>&1 | grep -E "differs|test result|panicked"
for v in fzwgpu fz-static fzwgpu fz-static; do
  echo "== $v"
  FZWGPU_PROFILE=1 .device/$v bench --size 1G --reps 1 --warmup 0 --replays 3 --presets szx 2>&1 | grep -E "^szx|profile:   szx_encode" | tail -2
done
for v in fzwgpu fz-static; do
  echo "== bench $v"
  .device/$v bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/static-$v.jsonl 2>&1 | grep -E "^sz|copy"
  .device/$v bench --dims 268435456 --reps 3 --presets szx --json $OUT/static-$v.jsonl 2>&1 | grep -E "^sz"
done
cp .device/fz-static .device/fzwgpu
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"

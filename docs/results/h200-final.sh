#!/bin/bash
# One H200 session: the validation sweep (every field x 3 bounds x f32/f64, compared
# byte for byte with the cpu backend) for szx, szp_composed and szp_centered, then the
# 1 GiB benchmarks (2-D and 1-D) with replayed kernel timing.
NO_DEMO=1 PRESETS="szx szp_composed szp_centered" bash docs/results/h200-validation.sh > $OUT/validation.log 2>&1
tail -3 $OUT/validation.log
grep -c "^sz" $OUT/validation.log
grep FAIL $OUT/validation.log | head
source .device/vulkan-env.sh
B=.device/fzwgpu
$B bench --size 1G --reps 5 --json $OUT/bench.jsonl
$B bench --dims 268435456 --reps 5 --json $OUT/bench.jsonl

#!/bin/bash
# After the review mends (szx_encode loops): kernel twins on the H200, szx validation
# against the cpu backend (f32/f64, 3 bounds), szx throughput 2-D and 1-D.
source .device/vulkan-env.sh
B=.device/fzwgpu
.device/kernels-test --test-threads 1 szx_kernels_match_twins_random szx_encode_magnitude_edges range 2>&1 | grep -E "differs|test result|panicked"
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
$B bench --size 1G --reps 3 --presets szx --json $OUT/mend.jsonl 2>&1 | grep -E "^sz|copy|adapter"
$B bench --dims 268435456 --reps 3 --presets szx --json $OUT/mend.jsonl 2>&1 | grep -E "^sz"

#!/bin/bash
# The committed round-2 build (full shader checks, encode cap 4096): szx validated
# against the cpu backend on every field (f32/f64, 3 bounds), then the throughput table.
source .device/vulkan-env.sh
B=.device/fzwgpu
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
$B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/final2.jsonl 2>&1 | grep -E "^sz|copy|adapter|preset"
$B bench --dims 268435456 --reps 3 --presets szx --json $OUT/final2.jsonl 2>&1 | grep -E "^sz"
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szx --reps 3 --json $OUT/final2.jsonl 2>&1 | grep -E "^sz"

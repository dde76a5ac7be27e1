#!/bin/bash
# szx_encode (one pass per block: classify + pack, codes kept in registers) + szx_compact,
# vec4 loads in szx_range_partial, naga loop bounding off: szx validated against the cpu
# backend on every field (f32/f64), then throughput (1 GiB 2-D and 1-D) and a profile.
# Ran with noloop as the default of that build; the log is h200-encode-noloop.log.
source .device/vulkan-env.sh
export FZWGPU_SHADER_CHECKS=noloop
B=.device/fzwgpu
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
$B bench --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/encode.jsonl 2>&1 | grep -E "^sz|copy|adapter"
$B bench --dims 268435456 --reps 3 --presets szx --json $OUT/encode.jsonl 2>&1 | grep -E "^sz"
$B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szx --reps 3 --json $OUT/encode.jsonl 2>&1 | grep -E "^sz"
FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szx 2>&1 | grep -E "profile" | tail -12

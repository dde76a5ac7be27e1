#!/bin/bash
# szx_encode with the non-flushing value path for float32 blocks that allow it: kernel
# twins on the H200 (random data and the fast-path edges), szx validation against the
# cpu backend (f32/f64), throughput with and without the encode workgroup cap, profile.
source .device/vulkan-env.sh
B=.device/fzwgpu
.device/kernels-test --test-threads 1 szx_kernels_match_twins_random szx_encode_fast_path_edges range 2>&1 | grep -E "differs|test result|panicked"
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
for g in 0 4096; do
echo "== FZWGPU_ENCODE_GROUPS=$g"
FZWGPU_ENCODE_GROUPS=$g $B bench --size 1G --reps 3 --presets szx --json $OUT/encode3-g$g.jsonl 2>&1 | grep -E "^sz|copy"
FZWGPU_ENCODE_GROUPS=$g $B bench --dims 268435456 --reps 3 --presets szx --json $OUT/encode3-g$g.jsonl 2>&1 | grep -E "^sz"
FZWGPU_ENCODE_GROUPS=$g $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szx --reps 3 --json $OUT/encode3-g$g.jsonl 2>&1 | grep -E "^sz"
done
FZWGPU_ENCODE_GROUPS=4096 FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szx 2>&1 | grep -E "profile" | tail -12

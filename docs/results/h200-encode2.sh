#!/bin/bash
# szx_encode with wgpu's full shader checks: kernel twins on the H200, szx validation
# against the cpu backend (f32/f64), then the workgroup cap of szx_encode
# (FZWGPU_ENCODE_GROUPS; teams walk several blocks, loading the next ahead).
source .device/vulkan-env.sh
B=.device/fzwgpu
.device/kernels-test --test-threads 1 szx range 2>&1 | grep -E "differs|test result"
PRESETS=szx NO_DEMO=1 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE|H200|H100"
for g in 0 1024 4096 16384; do
echo "== FZWGPU_ENCODE_GROUPS=$g"
FZWGPU_ENCODE_GROUPS=$g $B bench --size 1G --reps 3 --presets szx --json $OUT/encode-g$g.jsonl 2>&1 | grep -E "^sz"
FZWGPU_ENCODE_GROUPS=$g $B bench --dims 268435456 --reps 3 --presets szx --json $OUT/encode-g$g.jsonl 2>&1 | grep -E "^sz"
done
FZWGPU_ENCODE_GROUPS=4096 FZWGPU_PROFILE=1 $B bench --size 1G --reps 1 --warmup 0 --replays 5 --presets szx 2>&1 | grep -E "profile" | tail -12

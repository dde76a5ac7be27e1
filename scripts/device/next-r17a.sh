#!/bin/bash
# Round 17, call 1 (prepared in round 16, not yet run; kit: bash scripts/device/kit.sh).
# Vulkan's slow compression mode (round 16 e: in each process one preset's compression
# kernel ran 23-46% slower, a different preset each time; decompression and CUDA stable):
#  1. szp_composed six times in one process through Vulkan, then through CUDA (control);
#  2. the same through Vulkan with the buffer pool off (FZWGPU_POOL=off: every run
#     allocates afresh; tests whether placement of new allocations is the cause);
#  3. four runs with per-dispatch profiles (FZWGPU_PROFILE=1): which dispatch slows.
source .device/setup.sh
six=szp_composed,szp_composed,szp_composed,szp_composed,szp_composed,szp_composed
one() { # label backend [env]
  left 420 || return 0
  env ${3:-NOTHING=1} timeout 90 /tmp/ct/fzwgpu bench --backend $2 --size 1G --fields smooth --reps 3 --presets $six --json $OUT/r17a-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1" '{print t, $1, "compress", $3, "decompress", $8}'
}
one vk wgpu
one cuda cuda
one vk-nopool wgpu FZWGPU_POOL=off
one vk2 wgpu
left 420 && FZWGPU_PROFILE=1 timeout 90 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 1 --presets szp_composed,szp_composed,szp_composed,szp_composed 2>&1 | grep -E "^sz|chain_encode|szx_range|chain_compact|dispatches" | sed "s/^/profile: /" > $OUT/r17a-profile.log
grep -E "^profile: sz|chain_encode" $OUT/r17a-profile.log | head -40
echo "total $(( $(date +%s) - T0 )) s"
save_cache

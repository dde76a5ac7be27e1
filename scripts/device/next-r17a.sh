#!/bin/bash
# Round 17, call 1 (prepared in round 16, not yet run; kit: bash scripts/device/kit.sh).
# Vulkan's slow compression mode (round 16 e: in each process one preset's compression
# kernel ran 23-46% slower, a different preset each time; decompression and CUDA stable):
#  1. szp_composed six times in one process through Vulkan, then through CUDA (control);
#  2. the same through Vulkan with the buffer pool off (FZWGPU_POOL=off: every run
#     allocates afresh; tests whether placement of new allocations is the cause);
#  3. four runs with per-dispatch profiles (FZWGPU_PROFILE=1): which dispatch slows;
#  0. first, the SM clock sampled every 50 ms through one Vulkan run (clock or not).
source .device/setup.sh
six=szp_composed,szp_composed,szp_composed,szp_composed,szp_composed,szp_composed
one() { # label backend [env]
  left 420 || return 0
  env ${3:-NOTHING=1} timeout 90 /tmp/ct/fzwgpu bench --backend $2 --size 1G --fields smooth --reps 3 --presets $six --json $OUT/r17a-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1" '{print t, $1, "compress", $3, "decompress", $8}'
}
# the SM clock every 50 ms through the first Vulkan run (bench lines stamped with the
# time they print, to line a slow preset up with the clock)
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv,noheader -lms 50 > $OUT/r17a-clocks.csv 2>&1 &
smi=$!
left 420 && timeout 90 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --presets $six 2>&1 | while IFS= read -r l; do echo "$(date +%H:%M:%S.%N | cut -c1-12) $l"; done | grep -E " sz" > $OUT/r17a-stamped.log
kill $smi 2>/dev/null
cat $OUT/r17a-stamped.log
awk -F', ' '{print $2}' $OUT/r17a-clocks.csv | sort | uniq -c | sort -rn | head -5 | sed "s/^/clock histogram: /"
one vk wgpu
one cuda cuda
one vk-nopool wgpu FZWGPU_POOL=off
one vk2 wgpu
left 420 && FZWGPU_PROFILE=1 timeout 90 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 1 --presets szp_composed,szp_composed,szp_composed,szp_composed 2>&1 | grep -E "^sz|chain_encode|szx_range|chain_compact|dispatches" | sed "s/^/profile: /" > $OUT/r17a-profile.log
grep -E "^profile: sz|chain_encode" $OUT/r17a-profile.log | head -40
echo "total $(( $(date +%s) - T0 )) s"
save_cache

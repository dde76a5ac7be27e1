#!/bin/bash
# Round 10, call 1 (prepared 2026-12-03, not yet run): which kernel slows down when a
# chain preset is not the first in its process through Vulkan (round 9: szp_centered
# 664-666 GB/s alone in a process every time, 438-521 third after szx and
# szp_composed; szp_composed 770 alone, 249-770 after others), and whether the
# buffer pool's reuse is the cause.
#  1. the order szx,szp_composed,szp_centered four times with the pool (default) and
#     four times with FZWGPU_POOL=off (released buffers destroyed, every preset
#     allocates afresh), alternating;
#  2. the same order with --replay-mode batched (all replays in one submission, so the
#     GPU never waits for the host between them) four times, with the SM clock
#     sampled every 100 ms beside it: if the slow mode goes, it is the clocks dropping
#     while the host prepares each replay, not the kernels;
#  3. the same order with FZWGPU_PROFILE=1 (each dispatch timed alone) twice, keeping
#     the per-kernel lines of the compression submissions.
source .device/setup.sh
B=/tmp/ct/fzwgpu
one() { left 400 || return 0
  env $2 timeout 40 $B bench --backend wgpu --size 1G --reps 3 --presets szx,szp_composed,szp_centered $3 --json $OUT/r10a-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t=$1 '{printf "%s %s=%s ", t, $1, $3} END {print ""}'; }
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw --format=csv,noheader -lms 100 > $OUT/r10a-clocks.csv 2>&1 &
SMI=$!
for i in 1 2 3 4; do one pool ""; one nopool FZWGPU_POOL=off; one batched "" "--replay-mode batched"; done
kill $SMI 2>/dev/null
for i in 1 2; do left 480 || break
  FZWGPU_PROFILE=1 timeout 60 $B bench --backend wgpu --size 1G --reps 1 --warmup 0 --replays 3 --presets szx,szp_composed,szp_centered > $OUT/r10a-profile-$i.log 2>&1
  awk '/^profile:   / {a[$2]=a[$2]" "$(NF-1); next} /^sz/ {print $1, "compress", $3; for (x in a) print "  " x ":" a[x]; delete a}' $OUT/r10a-profile-$i.log
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 27, call c: next-r27b.sh cut to fit the device time left (~330 s of wall time).
# Kit as next-r27b.sh: KIT_B=f8219e9 KIT_C=2ad2b95f0604aad26d69293d328ddc4ae0fbf83e
#   built at 3a56acf (main = the tile runs, now scripts/device/patches/szx-tile-runs.patch);
#   fzwgpu-c = f8219e9 with scripts/device/patches/szx-compact-team8.patch (the commit
#   2ad2b95 was on a branch a new checkout lacks)
# 1. the test that failed through Vulkan in call a, with its whole message
# 2. 2-D szx: b (round 26 main), c (b + szx_compact by teams of 8), main (tile runs),
#    both backends
# 3. c's szx validation through both backends
# 4. per-dispatch profiles of 2-D szx through Vulkan: main, c
source .device/setup.sh
r=$(FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/kernels szx_encode_shift_that_widens 2>&1)
echo "$r" | grep -E "^test |differs|panicked|test result" | cut -c1-400 | head -8
b() { bench_line r27c ${LEFT:-300} "$@"; }
for be in cuda wgpu; do for x in fzwgpu-b fzwgpu-c fzwgpu; do b $x $be "--size 1G --fields smooth" 2d szx; done; done
VAL_LEFT=230 val r27c-c /tmp/ct/fzwgpu-c szx 90
for x in fzwgpu fzwgpu-c; do
  left 290 || break
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench --backend wgpu --size 1G --fields smooth --presets szx --reps 1 --warmup 0 --replays 5 > /tmp/prof-$x.log 2>&1
  echo "== profile $x wgpu"; python3 .device/profile-summary.py /tmp/prof-$x.log 2>&1 | grep -A12 "submissions of [0-9]* dispatches (5" | grep -E "submissions|szx_|scan_" | head -12
done
echo "total $(( $(date +%s) - T0 )) s"

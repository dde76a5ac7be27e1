#!/bin/bash
# Round 27, call b: where the time of main's szx compression goes (szx_encode8's tile
# runs + szx_gather, 8 tiles per workgroup since this call) against round 26's main.
# Kit: KIT_B=f8219e9 KIT_C=2ad2b95f0604aad26d69293d328ddc4ae0fbf83e bash scripts/device/kit.sh
#   fzwgpu-b = round 26's main; fzwgpu-c = round 26's main with szx_compact moving each
#   block with a team of 8 invocations (no search; branch exp-compact8, not kept)
# Call a (next-r27a.sh, on an H100) measured the tile runs 7-11% slower and left its
# profiles out by its time guard; one kernel test failed through Vulkan there.
# 1. that test through Vulkan with its whole panic message, then the kernel tests
# 2. per-dispatch profiles of 2-D szx, main and b, both backends (profile-summary.py)
# 3. main / b / c: 2-D and 1-D szx, both backends
# 4. c's szx validation through both backends
source .device/setup.sh
r=$(FZWGPU_TEST_BACKEND=wgpu timeout 100 /tmp/ct/kernels szx --test-threads 8 2>&1)
echo "$r" | grep -E "^test |differs|panicked|test result" | cut -c1-400 | head -20
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b fzwgpu-c; do
    left 260 || break
    FZWGPU_PROFILE=1 timeout 50 /tmp/ct/$x bench --backend $be --size 1G --fields smooth --presets szx --reps 1 --warmup 0 --replays 5 > /tmp/prof-$x-$be.log 2>&1
    echo "== profile $x $be"; python3 .device/profile-summary.py /tmp/prof-$x-$be.log 2>&1 | grep -A12 "submissions of [0-9]* dispatches (5" | grep -E "submissions|szx_|scan_" | head -12
  done
done
b() { bench_line r27b ${LEFT:-540} "$@"; }
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b fzwgpu-c; do
    b $x $be "--size 1G --fields smooth" 2d szx
  done
done
for be in cuda wgpu; do for x in fzwgpu fzwgpu-b fzwgpu-c; do LEFT=430 b $x $be "--dims 268435456" 1d szx; done; done
VAL_LEFT=480 val r27b-c /tmp/ct/fzwgpu-c szx 100
echo "total $(( $(date +%s) - T0 )) s"

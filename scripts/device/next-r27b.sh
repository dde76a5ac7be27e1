#!/bin/bash
# Round 27, call b: where the time of main's szx compression goes (szx_encode8's tile
# runs + szx_gather, 8 tiles per workgroup since this call) against round 26's main.
# Kit: KIT_B=f8219e9 bash scripts/device/kit.sh   (fzwgpu-b = round 26's main)
# Call a (next-r27a.sh, on an H100) measured the tile runs 7-11% slower and left its
# profiles out by its time guard; one kernel test failed through Vulkan there.
# 1. that test through Vulkan with its whole panic message, then the kernel tests
# 2. per-dispatch profiles of 2-D szx, main and b, both backends (profile-summary.py)
# 3. main / b: 2-D and 1-D szx, both backends
source .device/setup.sh
r=$(FZWGPU_TEST_BACKEND=wgpu timeout 100 /tmp/ct/kernels szx --test-threads 8 2>&1)
echo "$r" | grep -E "^test |differs|panicked|test result" | cut -c1-400 | head -20
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b; do
    left 300 || break
    FZWGPU_PROFILE=1 timeout 50 /tmp/ct/$x bench --backend $be --size 1G --fields smooth --presets szx --reps 1 --warmup 0 --replays 5 > /tmp/prof-$x-$be.log 2>&1
    echo "== profile $x $be"; python3 .device/profile-summary.py /tmp/prof-$x-$be.log 2>&1 | grep -A12 "submissions of [0-9]* dispatches (5" | grep -E "submissions|szx_|scan_" | head -12
  done
done
b() { bench_line r27b ${LEFT:-540} "$@"; }
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b; do
    b $x $be "--size 1G --fields smooth" 2d szx
    b $x $be "--dims 268435456" 1d szx
  done
done
echo "total $(( $(date +%s) - T0 )) s"

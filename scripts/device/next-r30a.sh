#!/bin/bash
# Prepared in round 29, run in round 30 on an H100 (docs/results/h100-r30a.log). Kit: main (bash
# scripts/device/kit.sh, then cp scripts/device/profile-summary.py .device/).
# Runs on whatever card comes; say which.
# 1. suite.sh on main: round 29 changed how every call of the wgpu backend locks
#    (DEVICE_LIFE, held shared; exclusively to create or destroy a device) and
#    szx_encode8's dispatch (no walk); the whole output of a failing binary in $OUT
# 2. if the card is an H200: the 2-D rows and the tiled szx row of PERFORMANCE.md's
#    table (its szx figures are from the walking encoder), both backends
source .device/setup.sh
SUITE_LEFT=380 bash .device/suite.sh 2>&1 | tail -60
T0=$(date +%s) # suite.sh ran in its own shell: the guards below count from here
if nvidia-smi -L 2>/dev/null | grep -q H200; then
  for be in cuda wgpu; do
    bench_line r30a 120 fzwgpu $be "--size 1G --fields smooth" 2d szx,szp_composed,szp_centered
    bench_line r30a 150 fzwgpu $be "--size 256M --fields tiled" tiled szx
  done
fi

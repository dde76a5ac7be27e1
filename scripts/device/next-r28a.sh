#!/bin/bash
# Prepared in round 27 for the next H200 call (not yet run). Kit: main, no variants
# (bash scripts/device/kit.sh). Runs on whatever card comes; say which.
# 1. suite.sh on main (not run since round 24: round 25's shared adapter enumeration,
#    round 26's interleaved slots, through the tests of both backends)
# 2. per-dispatch profiles of 2-D szx and 1-D szp_composed through CUDA and Vulkan
#    (CUDA's has never been taken: next-r21a.sh's part), profile-summary.py (copy
#    scripts/device/profile-summary.py into .device/ after the kit: kit.sh copies *.sh)
source .device/setup.sh
SUITE_LEFT=400 bash .device/suite.sh 2>&1 | tail -60
T0=$(date +%s) # suite.sh ran in its own shell: the guards below count from here
for be in cuda wgpu; do
  for f in "--size 1G --fields smooth:szx" "--dims 268435456:szp_composed"; do
    left 150 || break
    FZWGPU_PROFILE=1 timeout 50 /tmp/ct/fzwgpu bench --backend $be ${f%%:*} --presets ${f##*:} --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
    echo "== profile $be ${f##*:} ${f%%:*}"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A14 "submissions of [0-9]* dispatches (5" | head -30
  done
done

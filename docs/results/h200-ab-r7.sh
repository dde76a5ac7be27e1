#!/bin/bash
# PREPARED 2026-12-03 (round 7), not run (no device time left): szx_encode with fewer instructions (r7: pack fast path for w <= 8 with no
# division, vector first-candidate codes) against r6 (main 1977d80; r7 = exp/szx-pack-fast 0b3e22b), szx on the 1 GiB
# 2-D field, alternating; the executed-instruction count of r7's szx_encode (256 MiB,
# ncu; r6: 347.5M, h200-ncu-szx_encode.txt); r7's kernel twins.
source .device/cuda-setup.sh
ab() { be=$1; shift; for v in "$@"; do
  B=/tmp/ct/fzwgpu-cuda; [ $v = r7 ] && B=/tmp/ct/fzwgpu-cuda-r7
  timeout 25 $B bench --backend $be --size 1G --reps 3 --presets szx --json $OUT/ab-r7-$be-$v.jsonl 2>&1 | grep -E "^szx" | sed "s/^/$be $v /"
done; }
ab cuda r7 r6 r7 r6
timeout 25 /usr/local/cuda/bin/ncu -k szx_encode -c 1 --metrics smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum /tmp/ct/fzwgpu-cuda-r7 bench --backend cuda --size 256M --reps 1 --warmup 0 --replays 0 --presets szx 2>&1 | grep -E "inst_executed|warps_active|issue_active|duration"
ab wgpu r7 r6
for be in cuda wgpu; do echo "== kernels r7 $be"; FZWGPU_TEST_BACKEND=$be timeout 30 /tmp/ct/kernels-r7 --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"; done

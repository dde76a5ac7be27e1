#!/bin/bash
# 2026-12-03 (round 9, call 4): Vulkan chain compression's spread between processes.
# The cs binary (= main after the merge); each process runs one preset alone on the
# 1 GiB 2-D field (median of 3 reps, 20 replays); SM/memory clocks and temperature
# read just before each process; then a CUDA control.
source .device/cuda-setup.sh
T0=$(date +%s); left() { [ $(( $(date +%s) - T0 )) -lt ${1:-300} ]; }
one() { left || return 0; c=$(nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader | tr -d ' ')
  timeout 40 /tmp/ct/fzwgpu-cuda-cs bench --backend $1 --size 1G --reps 3 --presets $2 $3 --json $OUT/r9d-$1.jsonl 2>&1 | grep -E "^sz" | awk -v c="$c" -v b=$1 -v e="$3" '{print b, $1, "ratio", $2, "compress", $3, "decompress", $6, e, "clocks", c}'; }
for i in 1 2 3 4 5 6; do one wgpu szp_centered; one wgpu szp_composed; done
for i in 1 2 3; do one wgpu szp_centered "--replays 100"; done
for i in 1 2; do one cuda szp_centered; done
echo "total $(( $(date +%s) - T0 )) s"

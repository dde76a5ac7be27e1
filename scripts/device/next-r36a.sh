#!/bin/bash
# Prepared in round 35 for the next round (not yet run). Kit: bash scripts/device/kit.sh
# (main, no B). Runs on whatever card comes; say which.
# 1. the test binaries round 35 did not run on the device (transfers, with its new
#    host_staging_failure_falls_back_and_says_so, format, pipeline, fusion,
#    adversarial SZp, golden, real_data, chunks, stages) through CUDA and Vulkan
# 2. end to end `szx` on the 1 GiB 2-D field, --replays 1, three runs per backend
#    alternated: round 35's two runs per backend spread 67-81% (Vulkan
#    compress_into), so a row's status needs more runs
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/ct/fzwgpu adapters 2>&1 | grep -E "^selected" | cut -c1-260
tests_on "transfers format pipeline fusion adversarial_szp golden real_data chunks stages" 280 120
for r in 1 2 3; do for be in wgpu cuda; do
  left 540 || break
  timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r36a-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e $be: /"
done; done
echo "total $(( $(date +%s) - T0 )) s"

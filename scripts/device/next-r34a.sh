#!/bin/bash
# Prepared in round 33 for the next call (not yet run). Kit: bash scripts/device/kit.sh
# (main, no B). Runs on whatever card comes; say which. On an H200 its rows replace
# round 26's in PERFORMANCE.md's table (no H200 came in rounds 27-33).
# 1. the test binaries main changed in round 33 (transfers, format, pipeline) and the
#    kernel, fusion and adversarial SZp binaries, through CUDA and Vulkan
# 2. end to end, 1 GiB 2-D smooth field, every preset, --replays 1, twice per backend
#    alternated (main: Vulkan uploads from host memory and hashes the archive's payload
#    on upload; CUDA checks it on a thread beside the upload, as in round 33's calls a-c)
# 3. the table's kernel rows, every preset on the 2-D, 1-D and tiled fields through both
#    backends, one process per preset (round 33's 45 s limit per process cut six rows)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/ct/fzwgpu adapters 2>&1 | grep -E "^selected" | cut -c1-260
tests_on "transfers format pipeline kernels fusion adversarial_szp" 200 120
for be in wgpu cuda wgpu cuda; do
  left 330 || break
  timeout 75 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r34a-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
kernel_table r34a-table 560
echo "total $(( $(date +%s) - T0 )) s"

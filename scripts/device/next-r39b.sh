#!/bin/bash
# Round 39, one call: next-r39a.sh's zero-copy import timings (about 70 s), then main's
# kernel table (next-r34a.sh's part 3: every preset on the 2-D, 1-D and tiled fields
# through Vulkan then CUDA), nothing started past 560 s. Kit: bash scripts/device/kit.sh
# (main). On an H200 its rows replace round 26's in PERFORMANCE.md's table.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for m in 1024 256; do timeout 90 /tmp/ct/zerocopy-probe $m --iters 5 2>&1 | tee $OUT/r39b-zerocopy-$m.txt | sed "s/^/zc $m: /"; done
timeout 60 /tmp/ct/cuda-host-register 1024 2>&1 | sed "s/^/cuda register: /"
echo "zero copy done at $(( $(date +%s) - T0 )) s"
kernel_table r39b-table 560
echo "total $(( $(date +%s) - T0 )) s"

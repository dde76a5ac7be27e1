#!/bin/bash
# Prepared in round 32 as the second call after next-r32a.sh (same kit; it uses main's
# fzwgpu only). Runs on whatever card comes; say which.
# 1. the kernel, fusion and adversarial SZp test binaries through Vulkan, kernels
#    through CUDA (main after round 31's quad loads and ragged quad stores)
# 2. end to end (--replays 1) on the 1 GiB smooth field, all three presets, both
#    backends (round 19's table; round 21's decoding without the metadata's host copy
#    is not yet measured there)
# 3. the table's kernel rows: every preset on the 1 GiB smooth field and the 256 MiB
#    tiled field, both backends (the H200 table is round 26's)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_through wgpu 150
left 180 && { s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=cuda timeout 100 /tmp/ct/kernels --test-threads 8 2>&1); echo "cuda kernels: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(( $(date +%s) - s )) s"; echo "$r" | grep -E "FAILED|panicked" | head -5; }
E2E_LEFT=330 e2e r32b szx,szp_composed,szp_centered
for be in wgpu cuda; do
  bench_line r32b-table 480 fzwgpu $be "--size 1G --fields smooth" smooth szx,szp_composed,szp_centered
  bench_line r32b-table 520 fzwgpu $be "--size 256M --fields tiled" tiled szx,szp_composed,szp_centered
done
echo "total $(( $(date +%s) - T0 )) s"

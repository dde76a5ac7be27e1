#!/bin/bash
# 2026-12-03, session 18. chain_decode A/B: main = 7b6fd8c; cdc = f87ebd2 (float32 stores
# through workgroup memory, coalesced); cdx = 0b21937 (cdc + codes by direct extraction;
# on main as the COALESCE variant, the CUDA default); kernel twins of cdx on both backends.
source .device/cuda-setup.sh
mkdir -p /tmp/ab && tar xJf .device/ab.tar.xz -C /tmp/ab
for field in "--size 1G" "--dims 268435456"; do for be in wgpu cuda; do for v in main cdc cdx; do
  timeout 50 /tmp/ab/fzwgpu-cuda-$v bench --backend $be $field --reps 3 --presets szp_composed,szp_centered 2>&1 | grep -E "^sz" | sed "s/^/$field $be $v /"
done; done; done 2>&1
for be in cuda wgpu; do
  echo "== kernels cdx $be"; FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ab/kernels-cdx --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"
done 2>&1

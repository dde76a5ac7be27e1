#!/bin/bash
# 2026-12-03, session 18. SZx A/B 2: main = 7b6fd8c; pnf2 = 4011a98 (pre-test + flush-free path,
# its condition from the block min/max); pnf3 = 88b7f35 (pnf2 + constant blocks skip the
# second team reduction; adopted on main); then the kernel twin tests of pnf2 / pnf3
# (test binaries of those commits) through CUDA and Vulkan.
source .device/cuda-setup.sh
mkdir -p /tmp/ab && tar xJf .device/ab.tar.xz -C /tmp/ab
for field in "--size 1G" "--dims 268435456"; do for be in wgpu cuda; do for v in main pnf2 pnf3; do
  timeout 40 /tmp/ab/fzwgpu-cuda-$v bench --backend $be $field --reps 3 --presets szx 2>&1 | grep -E "^sz" | sed "s/^/$field $be $v /"
done; done; done 2>&1
for v in pnf3 pnf2; do for be in cuda wgpu; do
  echo "== kernels $v $be"; FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ab/kernels-$v --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"
done; done 2>&1

#!/bin/bash
# 2026-12-03, round 7: chain_encode COALESCE (exp/chain-encode-coalesce,
# float32 loads staged through workgroup memory) against r6 = main 27cecce (the binary was rebuilt there before the run; same kernels as 0ceb3a4).
# CUDA: ce's default has it; Vulkan: ce with FZWGPU_COALESCE=1 (decode is then the
# COALESCE one too: read the compress columns). Alternating; then ce's kernel twins.
source .device/cuda-setup.sh
for field in "--size 1G" "--dims 268435456"; do for be in cuda wgpu; do for v in r6 ce r6 ce; do
  B=/tmp/ct/fzwgpu-cuda-ce; E="FZWGPU_COALESCE=1"; [ $v = r6 ] && { B=/tmp/ct/fzwgpu-cuda; E="X=1"; }
  env $E timeout 50 $B bench --backend $be $field --reps 3 --presets szp_composed,szp_centered --json $OUT/ce-$be-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$field $be $v /"
done; done; done 2>&1 | tee $OUT/ce.log
for be in cuda wgpu; do
  echo "== kernels ce $be"; FZWGPU_COALESCE=1 FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ct/kernels-ce --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"
done 2>&1 | tee -a $OUT/ce.log

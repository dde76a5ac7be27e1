#!/bin/bash
# 2026-12-03, round 7: chain_decode through Vulkan. r6 = main 27cecce (the binary was rebuilt there before the run; same kernels as 0ceb3a4)
# (Vulkan: bit-stream reader + 16-byte stores); vk = exp/vk-chain-decode (direct codes
# in every variant); vk with FZWGPU_COALESCE=1 = direct codes + coalesced stores with
# the store loop unrolled by hand. Alternating; then the kernel twins of vk both ways.
source .device/cuda-setup.sh
for field in "--size 1G" "--dims 268435456"; do for v in r6 vk vkc r6 vk vkc; do
  B=/tmp/ct/fzwgpu-cuda-vk; E=""; [ $v = r6 ] && B=/tmp/ct/fzwgpu-cuda; [ $v = vkc ] && E="FZWGPU_COALESCE=1"
  env $E timeout 50 $B bench --backend wgpu $field --reps 3 --presets szp_composed,szp_centered --json $OUT/vk-chain-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$field wgpu $v /"
done; done 2>&1 | tee $OUT/vk-chain.log
for c in 0 1; do for be in wgpu cuda; do
  echo "== kernels vk $be COALESCE=$c"; FZWGPU_COALESCE=$c FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ct/kernels-vk --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"
done; done 2>&1 | tee -a $OUT/vk-chain.log

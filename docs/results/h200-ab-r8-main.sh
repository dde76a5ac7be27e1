#!/bin/bash
# 2026-12-03 (round 8): main after merging exp/szx-pack-fast and exp/chain-encode-nf
# (r8, built at the merge) against r6 (1977d80): its kernel and fused-chain twins
# through both backends; every preset at 1 GiB 2-D and 1-D through both backends,
# alternating r8/r6; then four more Vulkan 2-D chain runs of each to see the spread
# between processes that round 8's chain A/B showed.
source .device/cuda-setup.sh
tar xJf .device/r8.tar.xz -C /tmp/ct
for t in kernels-r8 fusion-r8; do for be in cuda wgpu; do echo "== $t $be"; FZWGPU_TEST_BACKEND=$be timeout 40 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"; done; done
run() { B=/tmp/ct/fzwgpu-cuda; [ $2 != r6 ] && B=/tmp/ct/fzwgpu-cuda-$2
  timeout 40 $B bench --backend $1 $3 --reps 3 --presets $4 --json $OUT/r8e-$1-$2.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$1 $2 $3 /"; }
for f in "--size 1G" "--dims 268435456"; do for be in cuda wgpu; do for v in r8 r6; do run $be $v "$f" szx,szp_composed,szp_centered; done; done; done
echo "== spread"; for i in 1 2 3 4; do for v in r8 r6; do run wgpu $v "--size 1G" szp_composed,szp_centered; done; done

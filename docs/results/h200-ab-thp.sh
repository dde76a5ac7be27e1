#!/bin/bash
# 2026-12-03, round 7: transparent huge pages for large fresh host
# allocations (exp/host-hugepages) against r6 = main 27cecce (the binary was rebuilt there before the run; same kernels as 0ceb3a4): end-to-end columns
# (compress %up, decompress e2e, copy_down) through both backends, alternating.
cat /sys/kernel/mm/transparent_hugepage/enabled
source .device/cuda-setup.sh
for be in cuda wgpu; do for v in r6 thp r6 thp; do
  B=/tmp/ct/fzwgpu-cuda-thp; [ $v = r6 ] && B=/tmp/ct/fzwgpu-cuda
  timeout 60 $B bench --backend $be --size 1G --reps 3 --presets szx,szp_composed --json $OUT/thp-$be-$v.jsonl 2>&1 | grep -E "^sz|^copy" | sed "s/^/$be $v /"
done; done 2>&1 | tee $OUT/thp.log

#!/bin/bash
# 2026-12-03, session 18. SZx compression A/B, alternating binaries (all --features cuda):
# main = 7b6fd8c; pre = 69de05d (exp/szx-const-precheck: constant pre-test, combined-pass
# layout); nf = 2e131bd (exp/szx-noflush: flush-free value path, per-value small flag);
# pnf = fa8db7c (both). Binaries packed in .device/ab.tar.xz.
source .device/cuda-setup.sh
mkdir -p /tmp/ab && tar xJf .device/ab.tar.xz -C /tmp/ab
for field in "--size 1G" "--dims 268435456"; do for be in wgpu cuda; do for v in main pre nf pnf main pre nf pnf; do
  timeout 40 /tmp/ab/fzwgpu-cuda-$v bench --backend $be $field --reps 3 --presets szx 2>&1 | grep -E "^sz" | sed "s/^/$field $be $v /"
done; done; done 2>&1

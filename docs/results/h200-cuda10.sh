#!/bin/bash
# Vulkan 2-D szx: "new" (82d9102) against the final build (constant blocks first), to see
# whether constant-first costs the quantized field (433 against 414 in single runs of
# h200-cuda8a/b); then the cap on szx_encode's workgroups (FZWGPU_ENCODE_GROUPS, default
# 4096 = 6.2 waves of 660 resident workgroups at 5 per SM on 132 SMs) at two whole waves
# (the CUDA default-cap figure: h200-cuda8b.log, 488).
source .device/cuda-setup.sh
N=/tmp/ct/fzwgpu-cuda; P=/tmp/ct/fzwgpu-cuda-new
for v in new final new final; do B=$N; [ $v = new ] && B=$P
  timeout 40 $B bench --backend wgpu --size 1G --reps 3 --presets szx 2>&1 | grep -E "^sz" | sed "s/^/wgpu $v /"
done
for be in wgpu cuda; do
  FZWGPU_ENCODE_GROUPS=1320 timeout 40 $N bench --backend $be --size 1G --reps 3 --presets szx 2>&1 | grep -E "^sz" | sed "s/^/groups=1320 $be /"
done

#!/bin/bash
# Round 31, call b (the first call that ran; next-r31a.sh's validation and table rows
# wait for another). Kit:
#   KIT_B=scripts/device/patches/decode-ragged-quad-stores.patch \
#   KIT_C=scripts/device/patches/encode1d-quad-loads.patch \
#   KIT_D=scripts/device/patches/encode-quad-loads.patch bash scripts/device/kit.sh
# Runs on whatever card comes; say which (A/B only within the call).
# 1. c: chain_encode_1d loading by quads (QUAD_LOADS: 64-byte pieces per load
#    instruction, transposed by xor shuffles) against main on the 1 GiB 1-D field, both
#    backends, alternating main / c twice on Vulkan (the row below 800: szp_composed
#    through Vulkan, 760 on the H200)
# 2. d: the same in the walking 2-D chain_encode too (Vulkan's form; CUDA runs its
#    COALESCE form, unchanged), on the 1 GiB 2-D field, alternating twice
# 3. b: the quad stores for ragged rows against main on 8190x32768, both backends
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
D1="--dims 268435456"
for x in fzwgpu fzwgpu-c fzwgpu fzwgpu-c; do bench_line r31b-1d 200 $x wgpu "$D1" 1d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-c; do bench_line r31b-1d 260 $x cuda "$D1" 1d szp_composed,szp_centered; done
D2="--size 1G --fields smooth"
for x in fzwgpu fzwgpu-d fzwgpu fzwgpu-d; do bench_line r31b-2d 380 $x wgpu "$D2" 2d szp_composed,szp_centered; done
R="--dims 8190x32768"
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do bench_line r31b-rag 520 $x $be "$R" ragged szp_composed,szp_centered; done; done
echo "total $(( $(date +%s) - T0 )) s"

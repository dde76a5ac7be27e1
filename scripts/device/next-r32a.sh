#!/bin/bash
# Prepared in round 31 for the next call (not yet run). Kit:
#   KIT_B=scripts/device/patches/encode1d-staged-slots.patch bash scripts/device/kit.sh
# Runs on whatever card comes; say which (A/B only within the call).
# 1. validation.sh of main after round 31's merges (quad loads in chain_encode /
#    chain_encode_1d, ragged quad stores): both chain presets through Vulkan on the
#    fields as given, szp_composed as 1-D through Vulkan and CUDA (next-r31d.sh's part)
# 2. b: chain_encode_1d staging its blocks' words in workgroup memory for blocks of 64+
#    (szp_composed's 128), then storing them word by word in order, against main on the
#    1 GiB 1-D field (the row below 800: szp_composed through Vulkan); szp_centered
#    (blocks of 32, unchanged path) is the control. Lavapipe: slower (barriers).
# 3. CUDA's ragged decoder by quads (FZWGPU_COALESCE=0) against its workgroup-memory
#    stores on 8190x32768
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
left 100 && run_val r32a-val-wgpu wgpu "szp_composed szp_centered" "" 120
left 180 && run_val r32a-val-wgpu-1d wgpu szp_composed 1d 55
left 240 && run_val r32a-val-cuda-1d cuda szp_composed 1d 55
D1="--dims 268435456"
for x in fzwgpu fzwgpu-b fzwgpu fzwgpu-b; do bench_line r32a-1d 420 $x wgpu "$D1" 1d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-b; do bench_line r32a-1d 470 $x cuda "$D1" 1d szp_composed,szp_centered; done
R="--dims 8190x32768"
bench_line r32a-rag 500 fzwgpu cuda "$R" ragged szp_composed,szp_centered
left 530 && FZWGPU_COALESCE=0 bench_line r32a-rag-nocoal 530 fzwgpu cuda "$R" ragged-nocoal szp_composed,szp_centered
echo "total $(( $(date +%s) - T0 )) s"

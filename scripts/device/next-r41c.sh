#!/bin/bash
# Round 41, call c (same kit as r41b: main at 6588d78, fzwgpu-b = 91d9538). r41b found
# CUDA's readbacks faster with 8M x 4 download staging (plain readback into touched
# memory 52.4 / 52.9 GB/s against 36.4 / 41.7 at 32M x 2; decompress_into 38.9 / 38.1
# against 35.1 / 33.1; compress_into's archive download 3.26 / 3.75 ms against 4.19 /
# 4.41). Before making it CUDA's default: more runs and the neighbouring shapes.
# 1. CUDA, end to end szx (1 GiB 2-D, --replays 1): def / d8x4 / d4x4 / d16x4 / d8x8 /
#    d16x2 / u8x4 (upload only), then def / d8x4 twice more, then FZWGPU_OVERLAP=on at
#    d8x4 twice
# 2. Vulkan: def / d8x4 twice
# 0. on an H200 only, first: main's kernel table (next-r41a.sh's step 1) for 300 s
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
d() { echo FZWGPU_DOWNLOAD_CHUNK=$1 FZWGPU_DOWNLOAD_BUFFERS=$2; }
L=${L:-330}
# on an H200 (none came since round 26) main's kernel table comes first
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then kernel_table r41c-table 300; L=540; fi
left $L && e2e_shape r41c def cuda fzwgpu
left $L && e2e_shape r41c d8x4 cuda fzwgpu $(d 8M 4)
left $L && e2e_shape r41c d4x4 cuda fzwgpu $(d 4M 4)
left $L && e2e_shape r41c d16x4 cuda fzwgpu $(d 16M 4)
left $L && e2e_shape r41c d8x8 cuda fzwgpu $(d 8M 8)
left $L && e2e_shape r41c d16x2 cuda fzwgpu $(d 16M 2)
left $L && e2e_shape r41c u8x4 cuda fzwgpu FZWGPU_UPLOAD_CHUNK=8M FZWGPU_UPLOAD_BUFFERS=4
for r in 1 2; do
  left $L && e2e_shape r41c def cuda fzwgpu
  left $L && e2e_shape r41c d8x4 cuda fzwgpu $(d 8M 4)
done
# decompression overlapped by chunks (FZWGPU_OVERLAP=on: payload chunks uploaded,
# decoded and read back while the next uploads; round 38 measured it slower at 32M x 2)
left $L && e2e_shape r41c ov-d8x4 cuda fzwgpu $(d 8M 4) FZWGPU_OVERLAP=on
left $L && e2e_shape r41c ov-d8x4 cuda fzwgpu $(d 8M 4) FZWGPU_OVERLAP=on
for r in 1 2; do
  left $L && e2e_shape r41c def wgpu fzwgpu
  left $L && e2e_shape r41c d8x4 wgpu fzwgpu $(d 8M 4)
done
shape_summary r41c
echo "total $(( $(date +%s) - T0 )) s"

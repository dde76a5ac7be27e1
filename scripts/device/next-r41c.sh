#!/bin/bash
# Round 41, call c (kit: main with CUDA's readbacks at 8M x 4 by default and
# FZWGPU_HASH_ON_UPLOAD; no B). r41b found CUDA's readbacks faster through four 8 MiB
# buffers than two of 32 MiB (made the default); this call checks that with more runs
# and its neighbours, and measures decompression's payload check hashed in CUDA's
# upload threads (FZWGPU_HASH_ON_UPLOAD=on: since this round CUDA's write_buffer_crc
# hashes each staged piece as it copies it; off, the default: a thread beside the
# upload hashes the payload again).
# 0. on an H200 only, first: main's kernel table (next-r41a.sh's step 1) for 300 s
# 1. CUDA tests with hashing on upload: format, transfers, pipeline
# 2. CUDA, end to end szx (1 GiB 2-D, --replays 1): def (8M x 4) / d32x2 / hash /
#    d4x4 / d16x4 / u8x4, then def / d32x2 / hash twice more, overlap at the default
# 3. Vulkan: def / d8x4 twice
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
d() { echo FZWGPU_DOWNLOAD_CHUNK=$1 FZWGPU_DOWNLOAD_BUFFERS=$2; }
L=${L:-330}
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then kernel_table r41c-table 300; L=540; fi
for b in format transfers pipeline; do left $L || break
  r=$(FZWGPU_HASH_ON_UPLOAD=on FZWGPU_TEST_BACKEND=cuda timeout 60 /tmp/ct/$b --test-threads 8 --skip staging_allocation_failures_are_typed_errors 2>&1)
  echo "cuda hash-on-upload $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
left $L && e2e_shape r41c def cuda fzwgpu
left $L && e2e_shape r41c d32x2 cuda fzwgpu $(d 32M 2)
left $L && e2e_shape r41c hash cuda fzwgpu FZWGPU_HASH_ON_UPLOAD=on
left $L && e2e_shape r41c d4x4 cuda fzwgpu $(d 4M 4)
left $L && e2e_shape r41c d16x4 cuda fzwgpu $(d 16M 4)
left $L && e2e_shape r41c u8x4 cuda fzwgpu FZWGPU_UPLOAD_CHUNK=8M FZWGPU_UPLOAD_BUFFERS=4
for r in 1 2; do
  left $L && e2e_shape r41c def cuda fzwgpu
  left $L && e2e_shape r41c d32x2 cuda fzwgpu $(d 32M 2)
  left $L && e2e_shape r41c hash cuda fzwgpu FZWGPU_HASH_ON_UPLOAD=on
done
# decompression overlapped by chunks (payload chunks uploaded, decoded and read back
# while the next upload; round 38 measured it slower at 32M x 2)
left $L && e2e_shape r41c ov cuda fzwgpu FZWGPU_OVERLAP=on
for r in 1 2; do
  left $L && e2e_shape r41c def wgpu fzwgpu
  left $L && e2e_shape r41c d8x4 wgpu fzwgpu $(d 8M 4)
done
shape_summary r41c
echo "total $(( $(date +%s) - T0 )) s"

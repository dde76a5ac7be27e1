#!/bin/bash
# Round 41, call b (kit: main at the staging commit, KIT_B=91d9538 = main before it).
# The staged transfers' shape (issue 5, item 5: end to end against the copy rate).
# Main's CUDA readbacks now pack all windows of one read into buffer fills queued ahead
# (before: one pipeline, with its fill and drain, per window), the buffers' size and
# count per direction are knobs on both backends (FZWGPU_UPLOAD_CHUNK / _BUFFERS,
# FZWGPU_DOWNLOAD_CHUNK / _BUFFERS), and the host's parallel copies cut ~32 pieces.
# 1. through CUDA: transfers, pipeline, overlap and concurrency tests, at the default
#    shape and at 1M buffers (5 down, 3 up), and with direct transfers on
# 2. end to end szx, 1 GiB 2-D field, --replays 1: old (fzwgpu-b) / new at 32M x 2 /
#    down 8M x 4 / both 8M x 4 / both 4M x 8, alternated, CUDA twice then Vulkan once;
#    every record tagged with its shape in $OUT/r41b-e2e.jsonl
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "default:" "small:FZWGPU_DOWNLOAD_CHUNK=1M FZWGPU_DOWNLOAD_BUFFERS=5 FZWGPU_UPLOAD_CHUNK=1M FZWGPU_UPLOAD_BUFFERS=3" "import:FZWGPU_HOST_IMPORT=on"; do
  for b in transfers pipeline overlap concurrency; do left 120 || break
    s=$(date +%s)
    r=$(env ${spec#*:} FZWGPU_TEST_BACKEND=cuda timeout 60 /tmp/ct/$b --test-threads 8 --skip staging_allocation_failures_are_typed_errors 2>&1)
    echo "cuda ${spec%%:*} $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
    echo "$r" | grep -E "FAILED|panicked" | head -5
  done
done
round() { # backend
  left 540 && e2e_shape r41b old $1 fzwgpu-b
  left 540 && e2e_shape r41b def $1 fzwgpu
  left 540 && e2e_shape r41b d8x4 $1 fzwgpu FZWGPU_DOWNLOAD_CHUNK=8M FZWGPU_DOWNLOAD_BUFFERS=4
  left 540 && e2e_shape r41b ud8x4 $1 fzwgpu FZWGPU_DOWNLOAD_CHUNK=8M FZWGPU_DOWNLOAD_BUFFERS=4 FZWGPU_UPLOAD_CHUNK=8M FZWGPU_UPLOAD_BUFFERS=4
  left 540 && e2e_shape r41b ud4x8 $1 fzwgpu FZWGPU_DOWNLOAD_CHUNK=4M FZWGPU_DOWNLOAD_BUFFERS=8 FZWGPU_UPLOAD_CHUNK=4M FZWGPU_UPLOAD_BUFFERS=8
}
round cuda; round cuda; round wgpu
shape_summary r41b
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 33, call e. Kit: main (bash scripts/device/kit.sh, no B): decompression's
# payload checksum computed from the pieces the upload's threads hash as they copy
# them into staging (Backend::write_buffer_crc), instead of a second thread reading
# the payload beside the upload.
# 1. the format and transfers test binaries through CUDA and Vulkan (the CUDA upload's
#    hashing runs only here: large_payload_checksum_comes_from_the_upload flips bytes
#    of a 4+ MiB payload)
# 2. end to end, 1 GiB 2-D smooth field, every preset, --replays 1: Vulkan, CUDA, Vulkan
#    (decompression's "upload" phase against rounds 32-33: 2.2-6.4 ms)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "format transfers" 200 90
for be in wgpu cuda wgpu; do
  left 420 || break
  timeout 75 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r33e-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
echo "total $(( $(date +%s) - T0 )) s"

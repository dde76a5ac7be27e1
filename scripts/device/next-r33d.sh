#!/bin/bash
# Round 33, call d. Kit: main (bash scripts/device/kit.sh, no B), with the measurement
# knobs FZWGPU_UPLOAD_CHUNK / FZWGPU_UPLOAD_BUFFERS. Vulkan's upload staging in host
# memory (round 33: 28.7-29.5 -> 39.4-40.7 GB/s against CUDA's 51.7) swept over the
# staging buffer size and count: bench's plain upload ("copy: host->device") and
# szp_composed end to end on the 1 GiB 2-D field, --reps 3 --replays 1, each
# configuration once, the default first and last.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for cfg in 32M:2 64M:2 32M:3 64M:3 128M:2 16M:4 64M:4 32M:2; do
  left 420 || break
  c=${cfg%%:*}; b=${cfg#*:}
  FZWGPU_UPLOAD_CHUNK=$c FZWGPU_UPLOAD_BUFFERS=$b timeout 60 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szp_composed --json $OUT/r33d-sweep.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-160 | sed "s/^/$c x$b: /"
done
echo "total $(( $(date +%s) - T0 )) s"

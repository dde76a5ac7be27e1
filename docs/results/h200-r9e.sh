#!/bin/bash
# 2026-12-03 (round 9, call 5): does the Vulkan chain compression's low mode follow
# the presets that ran before it in the same process? cs binary, 1 GiB 2-D field,
# 3 reps, 20 replays; preset orders alternated.
source .device/cuda-setup.sh
T0=$(date +%s); left() { [ $(( $(date +%s) - T0 )) -lt ${1:-190} ]; }
one() { left || return 0
  timeout 40 /tmp/ct/fzwgpu-cuda-cs bench --backend wgpu --size 1G --reps 3 --presets $1 --json $OUT/r9e-wgpu.jsonl 2>&1 | grep -E "^sz" | awk -v o=$1 '{printf "%s:%s=%s ", o, $1, $3} END {print ""}'; }
for i in 1 2 3 4; do one szx,szp_composed,szp_centered; one szp_centered,szp_composed; one szx,szp_centered; done
echo "total $(( $(date +%s) - T0 )) s"

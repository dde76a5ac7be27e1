#!/bin/bash
# Round 15, call 6 (short): main after chain_scan_x's SEGS moved into the CUDA-tuned
# variant (COALESCE: 4 through CUDA, 1 through Vulkan): both chain presets on the tiled
# field and the cube through both backends, to confirm CUDA keeps r15e's gain and
# Vulkan returns to r15d's figures.
source .device/setup.sh
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    left 150 || break
    timeout 60 /tmp/ct/fzwgpu bench --backend $be ${f%|*} --reps 3 --presets szp_composed,szp_centered --json $OUT/r15f-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="main $be ${f#*|}" '{print t, $1, "compress", $3, "decompress", $8, "maxerr", $NF}'
  done
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 17, call 2 (prepared in round 16, not yet run).
# Kit: KIT_B=scripts/device/patches/encode-groups.patch bash scripts/device/kit.sh
#   main    chain_encode quantizes a row's 32 values, then in 3-D the row above's 32
#   groups  fzwgpu-b: four values at a time, each group's row above right after it, so
#           the row above's codes are never all held at once (NVRTC sm_90: 118 registers
#           against 126, 7312 SASS instructions against 6976; with
#           FZWGPU_CUDA_MINBLOCKS=10 64 bytes of stack against 112). Through lavapipe
#           tiled compression +2-5%, 2-D equal.
#  1. both chain presets' compression, tiled (3-D), cube, 2-D and 1-D, alternating,
#     through CUDA and Vulkan; 2. the same tiled with FZWGPU_CUDA_MINBLOCKS=10 (CUDA);
#  3. validation of groups (chain presets, both backends).
source .device/setup.sh
ab() { # label backend field-args field-label binary [env]
  left 330 || return 0
  env ${6:-NOTHING=1} timeout 80 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r17b-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube" "--size 1G --fields smooth|2d" "--dims 268435456|1d"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab groups $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
done
ab main-mb10 cuda "--size 256M --fields tiled" tiled /tmp/ct/fzwgpu FZWGPU_CUDA_MINBLOCKS=10
ab groups-mb10 cuda "--size 256M --fields tiled" tiled /tmp/ct/fzwgpu-b FZWGPU_CUDA_MINBLOCKS=10
VAL_LEFT=400 val r17b /tmp/ct/fzwgpu-b "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

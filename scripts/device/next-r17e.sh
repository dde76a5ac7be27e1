#!/bin/bash
# Round 17, call 5. Kit: KIT_B=b8c3b97 bash scripts/device/kit.sh
#   main    flat units as their own kernel, chain_encode_flat (chain/encode.wgsl with
#           FLAT); chain_encode's NVRTC SASS is b8c3b97's again (6976 instructions, 126
#           registers; r17d's one-kernel form cost 3-7% through CUDA, 16-20% Vulkan)
#   before  fzwgpu-b (b8c3b97)
#  1. kernels and fusion tests through both backends;
#  2. both chain presets, main against before, on the aligned fields (2-D 8192x32768,
#     tiled CESM TS), through CUDA and Vulkan;
#  3. main on the flat fields of r17d (2-D 8190x32768, 3-D 1000x1000x268).
source .device/setup.sh
tests_on "kernels fusion" 100 90
ab() { chains r17e 480 80 "$@"; } # label backend field-args field-label binary
for be in cuda wgpu; do
  for f in "--dims 8192x32768|2d-8192" "--size 256M --fields tiled|tiled"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab before $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
  for f in "--dims 8190x32768|2d-8190" "--dims 1000x1000x268|3d-1000"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
  done
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

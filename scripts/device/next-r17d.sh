#!/bin/bash
# Round 17, call 4. Kit: KIT_B=b8c3b97 bash scripts/device/kit.sh
#   main    chain_encode's flat units: rows (or tiles) that are not whole units of 32
#           compress in one pass (each value quantized twice in 2-D, four times in 3-D)
#   before  fzwgpu-b (b8c3b97): those rows took chain_width + chain_pack (centered) or
#           the staged kernels (uncentered, auto)
#  1. kernels, fusion and adversarial_szp tests through both backends;
#  2. both chain presets, main against before, through CUDA and Vulkan: 2-D 8190x32768
#     and 3-D 1000x1000x268 (flat, ~1 GiB), and as controls of the aligned path the 2-D
#     8192x32768 and the tiled CESM TS field (288-wide rows);
#  3. validation of main's chain presets (every real field; half of them are flat).
source .device/setup.sh
tests_on "kernels fusion adversarial_szp" 120 100
ab() { chains r17d 400 80 "$@"; } # label backend field-args field-label binary
for be in cuda wgpu; do
  for f in "--dims 8190x32768|2d-8190" "--dims 1000x1000x268|3d-1000" "--dims 8192x32768|2d-8192" "--size 256M --fields tiled|tiled"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab before $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
done
VAL_LEFT=520 val r17d /tmp/ct/fzwgpu "szp_composed szp_centered" 80
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 17, call 6. Kit: KIT_B=b8c3b97 bash scripts/device/kit.sh
#   main    2-D rows that are not whole units of 32 decode in one pass,
#           chain_decode_ragged (chain/decode.wgsl with RAGGED; float32 stores through
#           workgroup memory); chain_decode's NVRTC SASS is b8c3b97's
#   before  fzwgpu-b (b8c3b97): such rows decoded with chain_scan (and compressed with
#           chain_width / chain_pack or staged)
#  1. kernels and fusion tests through both backends;
#  2. both chain presets, main against before, 2-D 8190x32768 through CUDA and Vulkan;
#     main on 2-D 8192x32768 (control) and on 48602x5522 (CESM-SE's width, ~1 GiB);
#  3. validation of main's chain presets through CUDA (time permitting).
source .device/setup.sh
tests_on "kernels fusion" 90 80
ab() { chains r17f 230 60 "$@"; } # label backend field-args field-label binary
for be in cuda wgpu; do
  ab main $be "--dims 8190x32768" 2d-8190 /tmp/ct/fzwgpu
  ab before $be "--dims 8190x32768" 2d-8190 /tmp/ct/fzwgpu-b
  ab main $be "--dims 48602x5522" 2d-48602 /tmp/ct/fzwgpu
done
ab main cuda "--dims 8192x32768" 2d-8192 /tmp/ct/fzwgpu
if left 200; then
  B=/tmp/ct/fzwgpu EXTRA="--backend cuda" PRESETS="szp_composed szp_centered" timeout 75 bash .device/validation.sh > $OUT/r17f-val-cuda.log 2>&1
  echo "validation r17f cuda: $(grep -cE '^sz' $OUT/r17f-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r17f-val-cuda.log) failed, $(grep -c ALL_DONE $OUT/r17f-val-cuda.log) done"
fi
echo "total $(( $(date +%s) - T0 )) s"

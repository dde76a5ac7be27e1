#!/bin/bash
# Round 18, call 1 (prepared in round 17, not yet run).
# Kit: KIT_B=scripts/device/patches/ragged-scalar.patch bash scripts/device/kit.sh
#   main     chain_decode_ragged stores float32 through workgroup memory on every
#            backend (COALESCE defined for it)
#   scalar   fzwgpu-b: COALESCE follows the backend (CUDA on, Vulkan off), and without
#            it each value is one 4-byte store bounded by its row. Through lavapipe
#            (with a CI run beside it, so only the ratio counts) 8190x2048
#            decompression 0.383-0.446 against 0.250-0.310 (`szp_composed`).
#  1. both chain presets, main against scalar, 2-D 8190x32768 and 48602x5522 through
#     Vulkan (and CUDA with FZWGPU_COALESCE=0, to see the scalar stores there);
#  2. the kernels and fusion tests of the kit (main) through both backends.
source .device/setup.sh
ab() { chains r18a 400 60 "$@"; } # label backend field-args field-label binary
for f in "--dims 8190x32768|2d-8190" "--dims 48602x5522|2d-48602"; do
  ab main wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
  ab scalar wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  ab main wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
  ab scalar wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
done
FZWGPU_COALESCE=0 ab scalar-co0 cuda "--dims 8190x32768" 2d-8190 /tmp/ct/fzwgpu-b
ab main cuda "--dims 8190x32768" 2d-8190 /tmp/ct/fzwgpu
tests_on "kernels fusion" 480 80
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Prepared in round 34 for the next round (not yet run). Kit:
#   KIT_B=scripts/device/patches/szx-round-quant.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: the SZx code of a value as round((x - r) * inv) (to the nearest, ties to even)
#    instead of floor((x - r) * inv * one + 1/2): no addition after the product, so no
#    `* one` is needed to keep drivers from fusing, two operations fewer per value on
#    the flushing, flush-free and vector paths. Codes differ only where the quotient
#    is exactly k + 1/2 (both neighbours then reconstruct at exactly eb); the twin does
#    the same and szx_encode_ties checks it (lavapipe: every kernel test passes).
# 1. szx kernel GB/s on the 1 GiB 2-D field, main / b alternated twice, both backends;
#    then the 1-D and tiled fields, b / main
# 2. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 3. per-dispatch profiles of 2-D szx through Vulkan, main / b
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b() { bench_line r35a ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  LEFT=200 b $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=280 val r35a-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=420 b $x $be "--dims 268435456" 1d szx
  LEFT=420 b $x $be "--size 256M --fields tiled" tiled szx
done; done
for x in fzwgpu fzwgpu-b; do left 520 || break; prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Prepared in round 35 for its second call. Kit (main d579589, the SZx code rounded to even):
#   KIT_B=scripts/device/patches/szx-fast-test.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: the flush-free path's first test per unit of four values is |t - round(t)| <= lim
#    (t = (x - r) * inv; lim = 1/2 - d from the block's min / max and largest code,
#    fast_lim in shaders/common/szx_units.wgsl, with its proof), which implies the
#    reconstruction is within eb (1 - 2u); units that fail it take the full test
#    (reconstruct, compare), so the codes are the full test's (lavapipe: the kernel
#    twins pass, and the new szx_encode_near_ties_large_offsets fails with the bound's
#    M inv term removed). Per value: sub, mul, round, sub, abs, compare instead of
#    sub, mul, round, convert, mul, mul, add, sub, abs, compare.
# 1. the Vulkan driver's registers of szx_encode8 (main, b)
# 2. szx kernel GB/s on the 1 GiB 2-D field, main / b alternated twice, both backends;
#    then the 1-D and tiled fields, b / main
# 3. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 4. per-dispatch profiles of 2-D and tiled szx through Vulkan, main / b
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-b; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r35b-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r35b-$v.txt | cut -c1-100)"
done
b() { bench_line r35b ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  LEFT=200 b $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=280 val r35b-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=420 b $x $be "--dims 268435456" 1d szx
  LEFT=420 b $x $be "--size 256M --fields tiled" tiled szx
done; done
for x in fzwgpu fzwgpu-b; do left 500 || break; prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
for x in fzwgpu fzwgpu-b; do left 530 || break; prof "$x wgpu tiled szx" $x --backend wgpu --size 256M --fields tiled --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

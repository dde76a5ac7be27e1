#!/bin/bash
# Prepared in round 35 for the next round (not yet run). Kit (main):
#   KIT_B=scripts/device/patches/szx-fewer-exchanges.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: two exchanges of szx_encode8 fewer per block, the same outputs (lavapipe: the
#    kernel twins pass, szx_encode_lone_subnormals among them):
#    - the special flag rides on the max key (a lane holding a nonzero subnormal
#      reports key 0xffffffff), so no butterfly of its own (3 shuffles per lane);
#    - the constant test's team reduction runs only where some block of the subgroup
#      may be constant (its range at most two steps; sg_any, as the retry does): on
#      the 2-D field ~5% of blocks are constant.
# 1. the Vulkan driver's registers of szx_encode8 (main, b)
# 2. szx kernel GB/s on the 1 GiB 2-D field, main / b alternated twice, both backends;
#    then the 1-D and tiled fields, b / main
# 3. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 4. per-dispatch profiles of 2-D and tiled szx through Vulkan, main / b
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-b; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r36b-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r36b-$v.txt | cut -c1-100)"
done
b() { bench_line r36b ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  LEFT=200 b $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=280 val r36b-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=420 b $x $be "--dims 268435456" 1d szx
  LEFT=420 b $x $be "--size 256M --fields tiled" tiled szx
done; done
for x in fzwgpu fzwgpu-b; do left 500 || break; prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
for x in fzwgpu fzwgpu-b; do left 530 || break; prof "$x wgpu tiled szx" $x --backend wgpu --size 256M --fields tiled --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

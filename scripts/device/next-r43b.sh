#!/bin/bash
# Round 43, call b (kit: main, with KIT_B=scripts/device/patches/szx-lazy-small.patch,
# KIT_C=.../szx-magic-round.patch, KIT_D=.../szx-lazy-magic.patch). On an H200 first
# (none since round 26): main's kernel rows (setup.sh's h200_rows). Then on any card,
# szx_encode8 A/B: b looks for subnormals only in blocks whose keys reach below the
# smallest normal (3 fewer operations per value in the fold), c rounds the flush-free
# codes by adding 2^23 (no conversion instructions), d both. The Vulkan driver's
# registers for each; 2-D szx kernel GB/s main / b / c / d alternated twice per
# backend; validation.sh of d's szx through both backends; 1-D and tiled, main / d.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r43b-table
for v in vkstats vkstats-b vkstats-c vkstats-d; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r43b-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r43b-$v.txt | cut -c1-100)"
done
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b fzwgpu-c fzwgpu-d; do
  bench_line r43b 380 $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=430 val r43b-d /tmp/ct/fzwgpu-d szx 80
for be in wgpu cuda; do for x in fzwgpu-d fzwgpu; do
  bench_line r43b 540 $x $be "--dims 268435456" 1d szx
  bench_line r43b 540 $x $be "--size 256M --fields tiled" tiled szx
done; done
echo "total $(( $(date +%s) - T0 )) s"

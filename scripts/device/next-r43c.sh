#!/bin/bash
# Round 43, call c (kit: main 4a20d0e, with KIT_B=9e8225f, main before it, as fzwgpu-b;
# fzwgpu-c, main with scripts/device/patches/chain-magic-int.patch, in .device/extra.tar.xz).
# On an H200 first (none since round 26): main's kernel rows (setup.sh's h200_rows).
# Then on any card: (1) the szx encoders' flush-free rounding by adding 2^23 (main's
# variant without COALESCE, which wgpu runs) against main before it: szx_encode8's
# registers; szx kernel GB/s through Vulkan on the 2-D field (two alternations), the
# tiled and 1-D fields (one); through CUDA, whose COALESCE form keeps the old code, the
# 2-D field (one). (2) chain_encode's fast path without conversions (c) against main:
# both chain presets on the 1-D and 2-D fields through Vulkan and CUDA. (3) The kernels
# test binary through both backends (the kernel twins now also run the CUDA-tuned
# variants through wgpu), then validation.sh of c's chain presets, then the lib binary
# (every variant compiled with NVRTC), as time allows.
source .device/setup.sh
[ -f .device/extra.tar.xz ] && tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r43c-table
timeout 60 /tmp/ct/vkstats szx_encode8 > $OUT/r43c-vkstats.txt 2>&1
echo "vkstats: $(grep -E 'szx_encode8 robust \[' $OUT/r43c-vkstats.txt | cut -c1-100)"
for r in 1 2; do for x in fzwgpu-b fzwgpu; do
  bench_line r43c 300 $x wgpu "--size 1G --fields smooth" 2d szx
done; done
for x in fzwgpu-b fzwgpu; do
  bench_line r43c 300 $x wgpu "--size 256M --fields tiled" tiled szx
  bench_line r43c 300 $x wgpu "--dims 268435456" 1d szx
  bench_line r43c 300 $x cuda "--size 1G --fields smooth" 2d szx
done
# bench_line with both chain presets in one run (70 s instead of 45)
bench2() {
  left $2 || return 0
  timeout 70 /tmp/ct/$3 bench --backend $4 $5 --reps 3 --presets szp_composed,szp_centered --json $OUT/$1-$4.jsonl 2>&1 | grep -E "^sz" | awk -v t="$3 $4 $6" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for be in wgpu cuda; do for x in fzwgpu fzwgpu-c; do
  bench2 r43c 420 $x $be "--dims 268435456" 1d
  bench2 r43c 420 $x $be "--size 1G --fields smooth" 2d
done; done
tests_on "kernels" 480 100
VAL_LEFT=500 val r43c-c /tmp/ct/fzwgpu-c "szp_composed szp_centered" 45
tests_on "lib" 540 50
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 47, call a (kit: main at this script's commit or later, built by kit.sh with
# KIT_B=0a524aa KIT_C=scripts/device/patches/lookback-no-fallback.patch; fzwgpu-c is the
# diagnostic form without the fallback's second copy of the decisions, unsafe, run with
# the one pass on: on / c / b separates the fallback code's cost from the look-back's
# (if the kit with fzwgpu-c makes the carry too large, build it without KIT_C);
# its CLI `fzwgpu` has the staged szx_encode8_lookback behind
# FZWGPU_SZX_LOOKBACK, default off; fzwgpu-b: main 0a524aa, before it; fzwgpu-on: the
# kit's CLI with FZWGPU_SZX_LOOKBACK=on). (1) The Vulkan driver's registers of
# szx_encode8 and szx_encode8_lookback. (2) On the device first: the kernels test
# binary's szx and scan tests through Vulkan (the look-back encoder against its twin in
# its three modes, with real concurrency) and the one-pass archive test of the chunks
# binary. (3) szx 2-D kernel GB/s: Vulkan b, on, off, c, on, b; CUDA b, on, c, b, on. (4) The
# same tests through CUDA (NVRTC compiles every kernel first). (5) 1-D and tiled, on / b,
# both backends. (6) validation.sh of `on` through both backends. On an H200 (none
# since round 26) main's kernel rows come first (setup.sh's h200_rows; lookback off).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r47a
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-on && chmod +x /tmp/ct/fzwgpu-on
timeout 60 /tmp/ct/vkstats szx_encode8 szx_encode8_lookback > $OUT/r47a-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r47a-vkstats.txt | cut -c1-110
tests_filter wgpu kernels szx_ 90; tests_filter wgpu kernels scan_ 30; tests_filter wgpu chunks szx_one_pass 60
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu-c "$@"\n' > /tmp/ct/fzwgpu-con && chmod +x /tmp/ct/fzwgpu-con
timeout 30 /tmp/ct/vkstats-c szx_encode8_lookback 2>&1 | grep -E "robust \[" | head -1 | cut -c1-110 | sed 's/^/c: /'
for x in fzwgpu-b fzwgpu-on fzwgpu fzwgpu-con fzwgpu-on fzwgpu-b; do bench_line r47a 330 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu-b fzwgpu-on fzwgpu-con fzwgpu-b fzwgpu-on; do bench_line r47a 400 $x cuda "--size 1G --fields smooth" 2d szx; done
left 420 && { tests_filter cuda kernels szx_ 100; tests_filter cuda chunks szx_one_pass 60; }
szx_shapes r47a "fzwgpu-on fzwgpu-b"
VAL_LEFT=530 val r47a-on /tmp/ct/fzwgpu-on szx 60
echo "total $(( $(date +%s) - T0 )) s"

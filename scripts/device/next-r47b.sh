#!/bin/bash
# Round 47, call b (kit: main at this script's commit or later, built by kit.sh with
# KIT_C=scripts/device/patches/lookback-window32.patch: fzwgpu-c is main with the
# one-pass encoder's look-back window at 32 tiles instead of 256; `fzwgpu` has the
# staged szx_encode8_lookback behind FZWGPU_SZX_LOOKBACK, default off, so `fzwgpu` is
# main's three passes, fzwgpu-on the one pass, fzwgpu-con the one pass with the
# window of 32). Self-contained: it stands in for next-r47a.sh if that never ran
# (without its round-46 baseline fzwgpu-b and no-fallback diagnostic). (1) Registers of
# szx_encode8 and szx_encode8_lookback (main, and c's). (2) The kernels binary's szx
# and scan tests and the chunks binary's one-pass archive test through Vulkan. (3) szx
# 2-D kernel GB/s alternated: Vulkan off, on, con, off, on, con; CUDA the same. (4) The
# same tests through CUDA. (5) tiled and 1-D, on / con / off, both backends.
# (6) validation.sh of on and con through CUDA, then Vulkan. On an H200 (none since
# round 26) main's kernel rows come first (setup.sh's h200_rows; the one pass off).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r47b
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-on && chmod +x /tmp/ct/fzwgpu-on
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu-c "$@"\n' > /tmp/ct/fzwgpu-con && chmod +x /tmp/ct/fzwgpu-con
timeout 60 /tmp/ct/vkstats szx_encode8 szx_encode8_lookback > $OUT/r47b-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r47b-vkstats.txt | cut -c1-110
timeout 30 /tmp/ct/vkstats-c szx_encode8_lookback 2>&1 | grep -E "robust \[" | head -1 | cut -c1-110 | sed 's/^/c: /'
tests_filter wgpu kernels szx_ 90; tests_filter wgpu kernels scan_ 30; tests_filter wgpu chunks szx_one_pass 60
for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu fzwgpu-on fzwgpu-con; do bench_line r47b 300 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu fzwgpu-on fzwgpu-con; do bench_line r47b 390 $x cuda "--size 1G --fields smooth" 2d szx; done
left 420 && { tests_filter cuda kernels szx_ 100; tests_filter cuda chunks szx_one_pass 60; }
szx_shapes r47b "fzwgpu-on fzwgpu-con fzwgpu"
VAL_LEFT=540 val r47b-on /tmp/ct/fzwgpu-on szx 45
VAL_LEFT=560 val r47b-con /tmp/ct/fzwgpu-con szx 45
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 48, call a (kit: main at this script's commit or later, built by kit.sh with
# KIT_C=scripts/device/patches/lookback-window32.patch and
# KIT_D=scripts/device/patches/lookback-lazy-aggregate.patch). `fzwgpu` has the staged
# szx_encode8_lookback behind FZWGPU_SZX_LOOKBACK (default off): fzwgpu is main's three
# passes, fzwgpu-on the one pass, fzwgpu-con the one pass with a look-back window of 32
# tiles, fzwgpu-don the one pass whose poll reads a tile's aggregate only where its
# inclusive prefix is not ready. next-r47b.sh's questions plus d. (1) Registers of
# szx_encode8 and szx_encode8_lookback (main, c, d). (2) The kernels binary's szx and
# scan tests and the chunks binary's one-pass archive test through Vulkan. (3) szx 2-D
# kernel GB/s, off / on / con / don through Vulkan, then CUDA, then both again.
# (4) The same tests through CUDA. (5) tiled and 1-D rows. (6) validation.sh of the one
# pass. On an H200 (none since round 26) main's kernel rows come first.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r48a
for v in on:fzwgpu con:fzwgpu-c don:fzwgpu-d; do
  printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/%s "$@"\n' "${v#*:}" > /tmp/ct/fzwgpu-${v%%:*} && chmod +x /tmp/ct/fzwgpu-${v%%:*}
done
timeout 60 /tmp/ct/vkstats szx_encode8 szx_encode8_lookback > $OUT/r48a-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r48a-vkstats.txt | cut -c1-110
for s in c d; do timeout 30 /tmp/ct/vkstats-$s szx_encode8_lookback 2>&1 | grep -E "robust \[" | head -1 | cut -c1-110 | sed "s/^/$s: /"; done
tests_filter wgpu kernels szx_ 90; tests_filter wgpu kernels scan_ 30; tests_filter wgpu chunks szx_one_pass 60
for r in 1 2; do for be in wgpu cuda; do for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu-don; do
  bench_line r48a $(( 200 + 120 * r )) $x $be "--size 1G --fields smooth" 2d szx
done; done; done
left 420 && { tests_filter cuda kernels szx_ 100; tests_filter cuda chunks szx_one_pass 60; }
szx_shapes r48a "fzwgpu-on fzwgpu-don fzwgpu"
VAL_LEFT=540 val r48a-on /tmp/ct/fzwgpu-on szx 45
echo "total $(( $(date +%s) - T0 )) s"

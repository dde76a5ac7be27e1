#!/bin/bash
# Round 46, call c (kit: main 83a5dc0, the staged szx_encode8_lookback, its CLI `fzwgpu` with it behind
# FZWGPU_SZX_LOOKBACK, default off, and its kernels, chunks and vkstats binaries only; fzwgpu-b: main 0a524aa; fzwgpu-on: the
# kit's CLI with FZWGPU_SZX_LOOKBACK=on). (1) The Vulkan driver's registers of
# szx_encode8 and szx_encode8_lookback. (2) On the device first: the kernels test
# binary's szx and scan tests through Vulkan (the look-back encoder against its twin in
# its three modes, with real concurrency) and the one-pass archive test of the chunks
# binary. (3) szx 2-D kernel GB/s: b, on, b, on through each backend. (4) The
# same tests through CUDA (NVRTC compiles every kernel first). (5) 1-D and tiled, on / b,
# Vulkan. (6) validation.sh of `on` through Vulkan (never ran; superseded by next-r47a.sh
# and next-r47b.sh; its test helper is now setup.sh's tests_filter). About 330 s in all (the session
# had 481 s of device time left): CUDA runs b once and `on` twice.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-on && chmod +x /tmp/ct/fzwgpu-on
timeout 60 /tmp/ct/vkstats szx_encode8 szx_encode8_lookback > $OUT/r46c-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r46c-vkstats.txt | cut -c1-110
tests_filter wgpu kernels szx_ 90; tests_filter wgpu kernels scan_ 30; tests_filter wgpu chunks szx_one_pass 60
for x in fzwgpu-b fzwgpu-on fzwgpu-b fzwgpu-on; do bench_line r46c 120 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu-b fzwgpu-on fzwgpu-on; do bench_line r46c 190 $x cuda "--size 1G --fields smooth" 2d szx; done
left 200 && { tests_filter cuda kernels szx_ 100; tests_filter cuda chunks szx_one_pass 60; }
for x in fzwgpu-on fzwgpu-b; do
  BENCH_T=25 bench_line r46c 240 $x wgpu "--size 256M --fields tiled" tiled szx
  BENCH_T=25 bench_line r46c 250 $x wgpu "--dims 268435456" 1d szx
done
# validation.sh of `on` through Vulkan only (the device time left allows one backend)
if left 270; then
  B=/tmp/ct/fzwgpu-on EXTRA="--backend wgpu" PRESETS=szx timeout 60 bash .device/validation.sh > $OUT/r46c-on-val-wgpu.log 2>&1
  echo "validation r46c-on wgpu: $(grep -cE '^sz' $OUT/r46c-on-val-wgpu.log) passed, $(grep -c '^FAIL' $OUT/r46c-on-val-wgpu.log) failed, $(grep -c ALL_DONE $OUT/r46c-on-val-wgpu.log) done"
fi
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 46, call d: call c's kit (main 83a5dc0, the staged szx_encode8_lookback) with the
# session's last device time (271 s, a machine start included): the Vulkan driver's
# registers of szx_encode8_lookback, the kernels binary's szx tests through Vulkan, and
# the 2-D szx kernel rows, main (fzwgpu-b) / one pass (fzwgpu-on) per backend; the
# tiled field through Vulkan as time allows. About 150 s.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-on && chmod +x /tmp/ct/fzwgpu-on
timeout 30 /tmp/ct/vkstats szx_encode8_lookback > $OUT/r46d-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r46d-vkstats.txt | cut -c1-110
s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=wgpu timeout 50 /tmp/ct/kernels szx_ --test-threads 8 2>&1)
echo "wgpu kernels szx_: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(( $(date +%s) - s )) s"; echo "$r" | grep -E "FAILED|panicked" | head -3
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu-on; do BENCH_T=35 bench_line r46d 130 $x $be "--size 1G --fields smooth" 2d szx; done; done
for x in fzwgpu-on fzwgpu-b; do BENCH_T=20 bench_line r46d 140 $x wgpu "--size 256M --fields tiled" tiled szx; done
echo "total $(( $(date +%s) - T0 )) s"

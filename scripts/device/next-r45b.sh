#!/bin/bash
# Round 45, call b (run on the machine call a left warm; kit and extra.tar.xz as in
# next-r45a.sh). szx 2-D through CUDA, every variant, main and LPC twice; LPC's kernels
# test binary through CUDA with a longer limit (call a's 70 s cut it off while NVRTC
# compiled); 1-D and tiled, main / LPC, through both backends.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
for x in fzwgpu-LPC fzwgpu fzwgpu-L fzwgpu-P fzwgpu-LP fzwgpu-LPC fzwgpu; do bench_line r45b 200 $x cuda "--size 1G --fields smooth" 2d szx; done
s=$(date +%s)
r=$(FZWGPU_TEST_BACKEND=cuda timeout 130 /tmp/ct/kernels-LPC --test-threads 8 2>&1)
echo "cuda kernels-LPC: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
echo "$r" | grep -E "FAILED|panicked" | head -5
for be in wgpu cuda; do for x in fzwgpu fzwgpu-LPC; do bench_line r45b 440 $x $be "--dims 268435456" 1d szx; done; done
for be in wgpu cuda; do for x in fzwgpu fzwgpu-LPC; do bench_line r45b 530 $x $be "--size 256M --fields tiled" tiled szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 44, call e (the round's first call that found a machine; kit: main c72bb62 with
# .device/extra.tar.xz: fzwgpu-b / vkstats-b / kernels-b of main 40481c2, the szx
# encoders' flush-free condition on the least nonzero magnitude; fzwgpu-c / vkstats-c
# of 40481c2 with scripts/device/patches/encode8-pack-selects.patch, szx_encode8's
# packer moving its state by selects). (1) szx_encode8's registers, main / b / c.
# (2) szx kernel GB/s on the 1 GiB 2-D field: through Vulkan main, b, c, main, b;
# through CUDA main, b, c. (3) validation.sh of b's szx through both backends. (4) b's
# kernels test binary through both backends. Then, as time allows, the tiled field
# through Vulkan, main and b.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-b vkstats-c; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r44e-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r44e-$v.txt | cut -c1-100)"
done
for x in fzwgpu fzwgpu-b fzwgpu-c fzwgpu fzwgpu-b; do bench_line r44e 260 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu fzwgpu-b fzwgpu-c; do bench_line r44e 330 $x cuda "--size 1G --fields smooth" 2d szx; done
VAL_LEFT=420 val r44e-b /tmp/ct/fzwgpu-b szx 75
for be in wgpu cuda; do
  left 500 || break
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=$be timeout 80 /tmp/ct/kernels-b --test-threads 8 2>&1)
  echo "$be kernels-b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
for x in fzwgpu fzwgpu-b; do BENCH_T=25 bench_line r44e 545 $x wgpu "--size 256M --fields tiled" tiled szx; done
echo "total $(( $(date +%s) - T0 )) s"

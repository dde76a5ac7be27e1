#!/bin/bash
# Round 45, call a (kit: main 96fa06f; .device/extra.tar.xz: fzwgpu-X, vkstats-X of main
# with szx_encode8 changed: L, a full block's units as four 16-byte loads without
# load_unit's per-unit bounds logic; P, the packer's store window set once per lane (one
# counter test per step) and its spill by two shifts; LP, both; LPC, LP with
# patches/szx-const-prefilter.patch; kernels-LPC, LPC's kernels test binary).
# (1) szx_encode8's registers through Vulkan per variant. (2) szx 2-D kernel GB/s:
# Vulkan main, L, P, LP, LPC, main, LPC; CUDA main, LP, LPC, main, LPC. (3) kernels-LPC
# through both backends; validation.sh of LPC's szx through both. (4) As time allows,
# 1-D and tiled, main / LPC through Vulkan.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-L vkstats-P vkstats-LP vkstats-LPC; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r45a-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r45a-$v.txt | cut -c1-100)"
done
for x in fzwgpu fzwgpu-L fzwgpu-P fzwgpu-LP fzwgpu-LPC fzwgpu fzwgpu-LPC; do bench_line r45a 230 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu fzwgpu-LP fzwgpu-LPC fzwgpu fzwgpu-LPC; do bench_line r45a 330 $x cuda "--size 1G --fields smooth" 2d szx; done
for be in wgpu cuda; do
  left 420 || break
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=$be timeout 70 /tmp/ct/kernels-LPC --test-threads 8 2>&1)
  echo "$be kernels-LPC: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
VAL_LEFT=480 val r45a-LPC /tmp/ct/fzwgpu-LPC szx 60
for x in fzwgpu fzwgpu-LPC; do BENCH_T=30 bench_line r45a 540 $x wgpu "--dims 268435456" 1d szx; done
for x in fzwgpu fzwgpu-LPC; do BENCH_T=25 bench_line r45a 560 $x wgpu "--size 256M --fields tiled" tiled szx; done
echo "total $(( $(date +%s) - T0 )) s"

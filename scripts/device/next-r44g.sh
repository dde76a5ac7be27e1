#!/bin/bash
# Round 44, call g (kit: main c72bb62; .device/extra.tar.xz: fzwgpu-c, main 0d3bcf8's
# kernels; fzwgpu-d, 0d3bcf8 with scripts/device/patches/szx-const-prefilter.patch, the
# encoders' constant test only for blocks whose computed range is <= 1 step instead of
# 2). szx 2-D compression d against c through Vulkan and CUDA, then validation.sh of
# d's szx through Vulkan as time allows (a short call: the session's device time left;
# VAL=0 skips the validation).
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for be in wgpu cuda; do for x in fzwgpu-c fzwgpu-d; do bench_line r44g 160 $x $be "--size 1G --fields smooth" 2d szx; done; done
if [ "${VAL:-1}" = 1 ] && left 170; then
  B=/tmp/ct/fzwgpu-d EXTRA="--backend wgpu" PRESETS=szx timeout 70 bash .device/validation.sh > $OUT/r44g-d-val-wgpu.log 2>&1
  echo "validation r44g-d wgpu: $(grep -cE '^sz' $OUT/r44g-d-val-wgpu.log) passed, $(grep -c '^FAIL' $OUT/r44g-d-val-wgpu.log) failed, $(grep -c ALL_DONE $OUT/r44g-d-val-wgpu.log) done"
fi
echo "total $(( $(date +%s) - T0 )) s"

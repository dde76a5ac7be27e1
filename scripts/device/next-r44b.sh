#!/bin/bash
# Round 44, call b (kit: main c72bb62; fzwgpu-b, vkstats-b and the kernels test binary
# kernels-b of main with the szx encoders' flush-free condition on the least nonzero
# magnitude, whatever the signs, in .device/extra.tar.xz). On an H200 first: main's
# kernel rows (h200_rows). Then the SASS of b's szx_encode8 (CUDA's COALESCE form and
# the form without, which Vulkan runs) for reading here; then setup.sh's szx_ab
# (its time marks counted from there): registers, szx
# kernel GB/s b against main on the 2-D field through Vulkan and CUDA (two
# alternations), validation.sh of b's szx, the 1-D and tiled fields, profiles.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r44b-table
for c in 1 0; do
  FZWGPU_COALESCE=$c timeout 60 /tmp/ct/fzwgpu-b kernel-source szx_encode8 --cuda --cubin /tmp/e8-$c.cubin > /dev/null 2>&1
  /usr/local/cuda/bin/cuobjdump -sass /tmp/e8-$c.cubin > /tmp/e8-$c.sass 2>&1
  echo "sass coalesce=$c: $(grep -cE '^ +/\*[0-9a-f]{4}\*/' /tmp/e8-$c.sass) instructions"
  xz -c /tmp/e8-$c.sass > $OUT/r44b-sass-encode8-b-coalesce$c.txt.xz
done
T1=$T0
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || T0=$(date +%s)
szx_ab r44b
echo "total $(( $(date +%s) - T1 )) s"

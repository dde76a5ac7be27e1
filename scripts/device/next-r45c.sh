#!/bin/bash
# Round 45, call c (kit as in next-r45a.sh; .device/extra.tar.xz: fzwgpu-LPC and
# fzwgpu-LC, main with L and patches/szx-const-prefilter.patch, without P). Whether P
# (the packer's store window) pays: LC against LPC, alternated, szx 2-D and tiled
# through both backends.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for be in wgpu cuda; do for x in fzwgpu-LC fzwgpu-LPC fzwgpu-LC fzwgpu-LPC; do bench_line r45c 330 $x $be "--size 1G --fields smooth" 2d szx; done; done
for be in wgpu cuda; do for x in fzwgpu-LC fzwgpu-LPC fzwgpu; do bench_line r45c 400 $x $be "--size 256M --fields tiled" tiled szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 48, call e: the core of next-r48d.sh for about 180 s of device time (same kit:
# main with KIT_B=lookback-skip-diag, KIT_C=lookback-wid, KIT_D=lookback-barrier-form):
# registers, then 2-D szx kernel GB/s through Vulkan (three passes, main's subgroup
# walk, the barrier form, the workgroup id) and CUDA (three passes, the walk).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
on_wrappers "c d"
timeout 20 /tmp/ct/vkstats szx_encode8_lookback 2>&1 | grep -E 'robust \[' | head -1 | cut -c1-100
for x in fzwgpu fzwgpu-on fzwgpu-don fzwgpu-con; do bench_line r48e 150 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu-on fzwgpu; do bench_line r48e 170 $x cuda "--size 1G --fields smooth" 2d szx; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 48, call d: next-r48c.sh cut to about 300 s for the device time left (same kit:
# main with KIT_B=lookback-skip-diag, KIT_C=lookback-wid, KIT_D=lookback-barrier-form).
# Registers; 2-D szx kernel GB/s through Vulkan (three passes, main's subgroup walk,
# the barrier form, the workgroup id) then CUDA; the kernels binary's szx tests and the
# one-pass archive test through Vulkan; a per-dispatch profile of the walk and of the
# one pass without a look-back through Vulkan.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
on_wrappers "b c d"
for v in vkstats vkstats-d; do
  timeout 30 /tmp/ct/$v szx_encode8_lookback > $OUT/r48d-$v.txt 2>&1
  echo "$v: $(grep -E 'robust \[' $OUT/r48d-$v.txt | head -1 | cut -c1-100)"
done
for x in fzwgpu fzwgpu-on fzwgpu-don fzwgpu-con; do bench_line r48d 200 $x wgpu "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu fzwgpu-on fzwgpu-don; do bench_line r48d 260 $x cuda "--size 1G --fields smooth" 2d szx; done
left 290 && { tests_filter wgpu kernels szx_ 60; tests_filter wgpu chunks szx_one_pass 40; }
for x in fzwgpu-on fzwgpu-bon; do left 330 && prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

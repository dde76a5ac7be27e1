#!/bin/bash
# Round 48, call c (kit: main at this script's commit or later, built by kit.sh with
# KIT_B=scripts/device/patches/lookback-skip-diag.patch, KIT_C=...lookback-wid.patch,
# KIT_D=...lookback-barrier-form.patch). Main's look-back now walks with the first
# subgroup alone (no workgroup barrier per round) where subgroups exist. Every variant
# runs the one pass (FZWGPU_SZX_LOOKBACK=on, wrappers fzwgpu-Xon): on = main's, bon =
# no look-back at all (a diagnostic: wrong archives, so only its per-dispatch profile
# counts: the one pass's cost without the look-back), con = main's with the tile from
# the workgroup id instead of a ticket, don = the workgroup-wide barrier form (round
# 48a's, with the lazy aggregate poll: Vulkan 538 / 536). (1) Registers of
# szx_encode8_lookback in each. (2) szx 2-D kernel GB/s: fzwgpu (three passes), on,
# con, don through Vulkan, then CUDA. (3) Per-dispatch profiles of the 2-D szx
# compression through Vulkan: three passes, on, bon. (4) The kernels binary's szx
# and scan tests and the one-pass archive test through Vulkan and CUDA. (5) The 2-D
# rows again, Vulkan then CUDA. (6) validation.sh of on.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
on_wrappers "b c d"
for v in vkstats vkstats-b vkstats-c vkstats-d; do
  timeout 30 /tmp/ct/$v szx_encode8_lookback > $OUT/r48c-$v.txt 2>&1
  echo "$v: $(grep -E 'robust \[' $OUT/r48c-$v.txt | head -1 | cut -c1-100)"
done
for be in wgpu cuda; do for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu-don; do
  bench_line r48c 300 $x $be "--size 1G --fields smooth" 2d szx
done; done
for x in fzwgpu fzwgpu-on fzwgpu-bon; do left 330 && prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
left 360 && { tests_filter wgpu kernels szx_ 90; tests_filter wgpu kernels scan_ 30; tests_filter wgpu chunks szx_one_pass 60; }
left 390 && { tests_filter cuda kernels szx_ 100; tests_filter cuda kernels scan_ 30; tests_filter cuda chunks szx_one_pass 60; }
for be in wgpu cuda; do for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu-don; do
  bench_line r48c 500 $x $be "--size 1G --fields smooth" 2d szx
done; done
VAL_LEFT=540 val r48c-on /tmp/ct/fzwgpu-on szx 40
echo "total $(( $(date +%s) - T0 )) s"

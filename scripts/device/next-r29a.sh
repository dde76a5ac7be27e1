#!/bin/bash
# Prepared in round 28 for the next device call (not yet run). szx_encode8 without its
# walk (scripts/device/patches/szx-nowalk.patch: one round of 32 blocks per workgroup,
# a workgroup per 32 blocks, so the kernel has no loop for naga to bound; the Vulkan
# driver gave it 80 registers, 64 without naga's loop bounding, h200-r26a-vkstats.txt,
# and round 10's global `noloop` diagnostic ran szx +11%) against main (4096 walking
# workgroups). Kit: KIT_B=scripts/device/patches/szx-nowalk.patch bash scripts/device/kit.sh
# Runs on whatever card comes: only A/B within this call counts; say which card.
# 1. the Vulkan driver's registers of szx_encode8, main and b (vkstats, vkstats-b)
# 2. 2-D szx (1 GiB smooth), both backends, main / b
# 3. b's szx validation through both backends (eval --compare-cpu, every real field)
# 4. tiled and 1-D rows; 5. step 2 again while time is left
# 0 (first): main's kernel twins through both backends: since ec0a0b5 workgroup memory
#   is not zeroed (FZWGPU_WG_ZERO_INIT), also in the CUDA translation; and main with
#   FZWGPU_WG_ZERO_INIT=on against off, 2-D szx and 1-D / 2-D szp_composed, both backends
source .device/setup.sh
tests_on "kernels fusion adversarial chunks" 150 100
for be in wgpu cuda; do for zi in on off; do
  for f in "--size 1G --fields smooth:szx,szp_composed" "--dims 268435456:szp_composed"; do
    left 240 || break
    FZWGPU_WG_ZERO_INIT=$zi timeout 60 /tmp/ct/fzwgpu bench --backend $be ${f%%:*} --reps 3 --presets ${f##*:} --json $OUT/r29a-zi-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="zero-init=$zi $be ${f%%:*}" '{print t, $1, "compress", $3, "decompress", $8}'
  done
done; done
T0=$(date +%s) # the steps below keep their own guards
for v in vkstats vkstats-b; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r29a-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 (robust|no-robust,no-checks) \[' $OUT/r29a-$v.txt | cut -c1-100 | tr '\n' ' ')"
done
b() { bench_line r29a ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do b $x $be "--size 1G --fields smooth" 2d szx; done; done
VAL_LEFT=330 val r29a-b /tmp/ct/fzwgpu-b szx 100
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=420 b $x $be "--size 256M --fields tiled" tiled szx
  LEFT=420 b $x $be "--dims 268435456" 1d szx
done; done
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do LEFT=540 b $x $be "--size 1G --fields smooth" 2d-2 szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

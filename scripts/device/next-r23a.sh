#!/bin/bash
# Round 23, call 1 (run it first). Kit:
#   KIT_B=scripts/device/patches/szx-compact-vec4.patch \
#   KIT_C=scripts/device/patches/range-final-unrolled.patch KIT_D=c1da48f \
#   KIT_E=scripts/device/patches/chain-walk-shared.patch bash scripts/device/kit.sh
# Main's kernels of rounds 21-23, not yet on any GPU but lavapipe:
#   round 23: chain_decode_planes (form chain_planes): the 3-D chain inverse stores the
#   x-y sums of every plane in one pass (chain_decode's 2-D walk over every plane),
#   replacing chain_scan_x + lorenzo_scan_axis along y (0.42 + 0.16 of the 0.8 ms per
#   256 MiB tiled field through Vulkan in round 15); lavapipe tiled 3-D 64 MiB
#   decompression 0.41-0.42 -> 0.62-0.65 GB/s. FZWGPU_CHAIN_PLANES=off restores
#   chain_scan on the same binary; =on takes it below auto's 4096-invocation threshold.
#   round 22: chain_encode_1d / chain_decode_1d (1-D: one step per invocation, NVRTC
#   128 -> 63 and 96 -> 48 registers), chain_encode's 2-D forms without plane_d's
#   second row. fzwgpu-d (c1da48f) is main before rounds 21-22's kernel changes.
# 1. vkstats of the chain forms (the Vulkan driver's registers)
# 2. A/B chain_planes off / on: both chain presets, CESM TS tiled to 256 MiB (3-D), both
#    backends, twice
# 3. validation: the chain presets with the real fields flattened to 1-D (the 1-D forms),
#    then at their own dims with FZWGPU_CHAIN_PLANES=on (chain_decode_planes on every
#    3-D field), through CUDA and Vulkan
# 4. the kernel, fusion and adversarial SZp tests through both backends
# 5. A/B fzwgpu-d / main: 1-D and 2-D 1 GiB, both chain presets, both backends
source .device/setup.sh
timeout 60 /tmp/ct/vkstats chain_encode_1d chain_encode chain_encode_3d chain_encode_flat chain_decode_1d chain_decode chain_decode_planes chain_scan_x chain_scan_last > $OUT/r23a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r23a-vkstats.txt | cut -c1-120
planes() { # round backend
  for pl in off on; do
    left ${LEFT:-200} || break
    FZWGPU_CHAIN_PLANES=$pl timeout 60 /tmp/ct/fzwgpu bench --backend $2 --size 256M --fields tiled --reps 3 --presets szp_composed,szp_centered --json $OUT/r23a-planes-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 planes=$pl $2 tiled-256M" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
planes 1 wgpu; planes 1 cuda; planes 2 wgpu; planes 2 cuda
export SHAPE=1d; VAL_LEFT=260 val r23a-1d /tmp/ct/fzwgpu "szp_composed szp_centered" 80; unset SHAPE
tests_through cuda 360
tests_through wgpu 390
ab() { # backend fields-args label
  for bin in fzwgpu-d fzwgpu; do
    left ${LEFT:-500} || break
    timeout 60 /tmp/ct/$bin bench --backend $1 $2 --reps 3 --presets szp_composed,szp_centered --json $OUT/r23a-ab-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $1 $3" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
ab wgpu "--dims 268435456" 1d
ab cuda "--dims 268435456" 1d
ab wgpu "--size 1G --fields smooth" 2d
ab cuda "--size 1G --fields smooth" 2d
FZWGPU_CHAIN_PLANES=on VAL_LEFT=530 val r23a-own /tmp/ct/fzwgpu "szp_composed szp_centered" 30
echo "total $(( $(date +%s) - T0 )) s"

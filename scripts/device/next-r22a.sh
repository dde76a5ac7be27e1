#!/bin/bash
# Round 22, call 1 (prepared in round 22, not yet run; run it first). Kit:
#   KIT_B=scripts/device/patches/szx-compact-vec4.patch \
#   KIT_C=scripts/device/patches/range-final-unrolled.patch KIT_D=c1da48f \
#   KIT_E=scripts/device/patches/chain-walk-shared.patch bash scripts/device/kit.sh
# Main's round-22 chain kernels, not yet on any GPU but lavapipe:
#   chain_encode_1d / chain_decode_1d (ONE_D): 1-D fields, one step per invocation, no
#   walk state; NVRTC sm_90 128 -> 63 and 96 -> 48 registers (COALESCE 56); lavapipe
#   1-D compression 2.8-3.1x, decompression 2.3-2.4x.
#   chain_encode / chain_encode_flat without plane_d's second row (chain_encode_3d /
#   chain_encode_flat_3d keep the 3-D walk): NVRTC SASS 6984 -> 6552; lavapipe 2-D
#   compression +35-49%, flat +37-41%.
#   fzwgpu-d (c1da48f) is main before rounds 21-22's kernel changes; for the chain
#   presets' kernels it differs from main only by round 22's forms.
# 1. vkstats of every chain form (the Vulkan driver's registers for the new forms)
# 2. validation of main's chain presets with every real field flattened to 1-D (the
#    1-D forms), then at the fields' own dims, through CUDA and Vulkan
# 3. the kernel, fusion and adversarial SZp tests through both backends
# 4. A/B fzwgpu-d / main: szp_composed and szp_centered, 1-D and 2-D 1 GiB, Vulkan then
#    CUDA, while time is left
source .device/setup.sh
timeout 60 /tmp/ct/vkstats chain_encode_1d chain_encode chain_encode_3d chain_encode_flat chain_decode_1d chain_decode > $OUT/r22a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r22a-vkstats.txt | cut -c1-120
export SHAPE=1d; VAL_LEFT=150 val r22a-1d /tmp/ct/fzwgpu "szp_composed szp_centered" 90; unset SHAPE
tests_through cuda 300
tests_through wgpu 330
ab() { # backend fields-args label
  for bin in fzwgpu-d fzwgpu; do
    left ${LEFT:-540} || break
    timeout 60 /tmp/ct/$bin bench --backend $1 $2 --reps 3 --presets szp_composed,szp_centered --json $OUT/r22a-ab-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $1 $3" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
ab wgpu "--dims 268435456" 1d
ab wgpu "--size 1G --fields smooth" 2d
ab cuda "--dims 268435456" 1d
ab cuda "--size 1G --fields smooth" 2d
VAL_LEFT=520 val r22a-own /tmp/ct/fzwgpu "szp_composed szp_centered" 35
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 26, one call holding the most of next-r24c.sh and next-r24d.sh (device starts
# failed again and again in rounds 25-26, so a second call may not come). Kit as built
# for both (no rebuild needed):
#   KIT_B=4379c91 KIT_C=scripts/device/patches/slots-interleaved.patch \
#   KIT_D=scripts/device/patches/pack-uniform.patch bash scripts/device/kit.sh
#   fzwgpu-c: slots of blocks of 32 interleaved in groups of 32 (szp_centered's 2-D and
#     tiled compression: next-r24c.sh says why); fzwgpu-d: the packers' path chosen by
#     the subgroup's widest block (szx 2-D, 1-D szp_composed: next-r24d.sh).
# Runs on whatever card comes: only A/B within this call counts; say which card.
# No validation here: a patch that wins is validated (validation.sh) before it merges.
# 1. vkstats (registers through Vulkan) of szx_encode8 and the chain kernels
# 2. main / c on 2-D szp_centered and szp_composed, both backends
# 3. main / d on 2-D szx and 1-D szp_composed, both backends
# 4. 1-D szp_centered through Vulkan with and without FZWGPU_COALESCE=1 (chain_decode_1d
#    with workgroup-memory stores against the walking chain_decode)
# 5. main / c on the tiled 3-D field (szp_centered), both backends
# 6. steps 2 and 3 again while time is left
source .device/setup.sh
timeout 60 /tmp/ct/vkstats szx_encode8 szx_compact chain_encode chain_encode_1d chain_decode chain_compact > $OUT/r26a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r26a-vkstats.txt | cut -c1-120
b() { bench_line r26a ${LEFT:-540} "$@"; } # binary backend field-args label presets
round() {
  for be in wgpu cuda; do
    for x in fzwgpu fzwgpu-c; do b $x $be "--size 1G --fields smooth" 2d-$1 szp_centered,szp_composed; done
    for x in fzwgpu fzwgpu-d; do b $x $be "--size 1G --fields smooth" 2d-$1 szx; b $x $be "--dims 268435456" 1d-$1 szp_composed; done
  done
}
round 1
b fzwgpu wgpu "--dims 268435456" 1d-1 szp_centered
FZWGPU_COALESCE=1 b fzwgpu wgpu "--dims 268435456" 1d-1-coalesce szp_centered
for x in fzwgpu fzwgpu-c; do b $x wgpu "--size 256M --fields tiled" tiled szp_centered; b $x cuda "--size 256M --fields tiled" tiled szp_centered; done
echo "round 1 done $(( $(date +%s) - T0 )) s"
LEFT=520 round 2
echo "total $(( $(date +%s) - T0 )) s"

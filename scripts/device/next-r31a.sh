#!/bin/bash
# Prepared in round 30 for the next call (not yet run). Kit:
#   KIT_B=scripts/device/patches/decode-ragged-quad-stores.patch bash scripts/device/kit.sh
# Runs on whatever card comes; say which (only A/B within the call counts on an H100).
# 1. validation.sh of both chain presets through both backends: round 30's quad stores
#    (QUAD_STORES) in chain_decode / chain_decode_1d / chain_decode_planes, and
#    chain_decode_1d as the 1-D decoder through Vulkan, have passed the kernel twins on
#    lavapipe and every bench cross-check on an H100, not yet validation on the device
# 2. the table's chain rows (2-D, 1-D, tiled 3-D), both backends: on an H200 these are
#    the rows PERFORMANCE.md's table quotes (its chain decompression figures predate
#    the quad stores)
#    and CUDA's chain_decode_1d with quad stores instead of COALESCE
# 3. b: the quad stores for rows that are not whole units of 32 (chain_decode_ragged,
#    chain_decode_planes_ragged: the funnelled aligned pieces stored by quads, the
#    head's components by each invocation) against main on 8190x32768; through CUDA
#    chain_decode_ragged keeps COALESCE, so also b with FZWGPU_COALESCE=0 there
source .device/setup.sh
VAL_LEFT=250 val r31a /tmp/ct/fzwgpu szp_composed,szp_centered 120
for be in wgpu cuda; do
  bench_line r31a 360 fzwgpu $be "--size 1G --fields smooth" 2d szp_composed,szp_centered
  bench_line r31a 380 fzwgpu $be "--dims 268435456" 1d szp_composed,szp_centered
  bench_line r31a 400 fzwgpu $be "--size 256M --fields tiled" tiled szp_composed,szp_centered
done
# CUDA's chain_decode_1d by quads (FZWGPU_COALESCE=0; it changes the compression's
# kernels too, but the 1-D decompression runs chain_decode_1d alone) against its
# workgroup-memory stores (main's default, the 1d row above)
FZWGPU_COALESCE=0 bench_line r31a-nocoal 420 fzwgpu cuda "--dims 268435456" 1d-nocoal szp_composed,szp_centered
R="--dims 8190x32768"
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do bench_line r31a-rag 480 $x $be "$R" ragged szp_composed,szp_centered; done; done
left 520 && FZWGPU_COALESCE=0 bench_line r31a-rag-nocoal 520 fzwgpu-b cuda "$R" ragged szp_composed,szp_centered
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 24, call 4 (prepared in round 24, not run). The kit of next-r24c.sh with
#   KIT_D=scripts/device/patches/pack-uniform.patch as well:
#   KIT_B=4379c91 KIT_C=scripts/device/patches/slots-interleaved.patch \
#   KIT_D=scripts/device/patches/pack-uniform.patch bash scripts/device/kit.sh
#   fzwgpu-d: the packers of chain_encode (pack32: pieces of 4 w, 2 w or w bits) and
#     szx_encode8 (pack_vec: 4 w or w) choose their path by the subgroup's widest block
#     (subgroupMax) instead of the lane's own: a subgroup whose blocks straddle a path
#     boundary (w 8 / 9, 16 / 17) runs the widest path alone instead of each taken path
#     in turn. Same bits (the kernel tests pass). NVRTC sm_90: same registers (64 / 78 /
#     63 / 126). Lavapipe cannot show it for szx (its subgroups are one team of 8).
#     The fields where widths straddle 8: 1-D szp_composed (ratio 4.2: ~7.6 bits per
#     value) and szx (~4 bits, teams of 8 lanes, four teams per NVIDIA subgroup).
# Runs on whatever card comes: only A/B within this call counts; say which card.
# 1. main / fzwgpu-d, alternating twice: 2-D 1 GiB szx, szp_composed, szp_centered and
#    1-D szp_composed through Vulkan and CUDA
#    and main with FZWGPU_COALESCE=1 through Vulkan (the CUDA-tuned chain kernels), 2-D
#    and 1-D (where it runs chain_decode_1d with stores through workgroup memory)
# 2. validation.sh of fzwgpu-d: szx and szp_composed through both backends
source .device/setup.sh
b() { # binary backend fields-args label presets
  left ${LEFT:-380} || return 0
  timeout 50 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets $5 --json $OUT/r24d-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for r in 1 2; do
  for be in wgpu cuda; do for x in fzwgpu fzwgpu-d; do
    b $x $be "--size 1G --fields smooth" 2d-$r szx,szp_composed,szp_centered
    b $x $be "--dims 268435456" 1d-$r szp_composed
  done; done
  # main's CUDA-tuned variants through Vulkan (chain_decode's stores through workgroup
  # memory lost 24-43% there in round 6, before the walks and the register changes)
  FZWGPU_COALESCE=1 b fzwgpu wgpu "--size 1G --fields smooth" 2d-$r-coalesce szp_composed,szp_centered
  # 1-D: main runs the walking chain_decode through Vulkan (chain_decode_1d lost there in
  # round 23, 595 against 948 for szp_centered); with FZWGPU_COALESCE=1 it runs
  # chain_decode_1d with its stores through workgroup memory (CUDA's 1996)
  b fzwgpu wgpu "--dims 268435456" 1d-$r szp_centered
  FZWGPU_COALESCE=1 b fzwgpu wgpu "--dims 268435456" 1d-$r-coalesce szp_composed,szp_centered
done
echo "ab done $(( $(date +%s) - T0 )) s"
VAL_LEFT=520 val r24d-d /tmp/ct/fzwgpu-d "szx szp_composed" 45
echo "total $(( $(date +%s) - T0 )) s"

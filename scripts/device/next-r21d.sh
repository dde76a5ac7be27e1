#!/bin/bash
# Round 21, call 4 (prepared in round 21, not yet run). Kit: the kit of next-r21a.sh
# with KIT_E=scripts/device/patches/chain-walk-shared.patch as well (fzwgpu-e): both
#   chain kernels keep their 32 values of walk state per invocation (chain_encode: the
#   previous step's walked quantity; chain_decode: the columns' running sums along y)
#   in workgroup memory instead of registers (8 vec4 pieces per invocation at
#   k * WG + lid; only the owner touches them, no barrier). NVRTC sm_90: chain_encode
#   126 -> 93 registers (flat 128 -> 95), chain_decode (COALESCE) 96 -> 80, ragged
#   110 -> 76; without COALESCE (Vulkan's form) 96 -> 62 and 95 -> 64; float64
#   148 -> 116, 96 -> 64. Round 7's ncu profile: chain_encode
#   latency-bound at 24% occupancy (125 registers); round 20's vkstats: chain_decode 95.
#   Compression runs only chain_encode and decompression only chain_decode, so the
#   A/B's compress column measures one half and its decompress column the other.
#   Lavapipe: tests pass, mutations fail; both kernels slower there (not the target).
# 1. validation.sh of both chain presets through fzwgpu-e on both backends
#    (eval --compare-cpu on every real field, 3 bounds, f32 and f64)
# 2. A/B main / fzwgpu-e, szp_composed and szp_centered, through Vulkan (the 800 / 1000
#    GB/s targets' gaps are widest there): 1-D 1 GiB and 2-D smooth 1 GiB, then 1-D
#    once more; then CUDA 1-D while time is left
source .device/setup.sh
VAL_LEFT=230 val r21d-e /tmp/ct/fzwgpu-e "szp_composed szp_centered" 110
ab() { # round backend fields-args label
  for bin in fzwgpu fzwgpu-e; do
    left ${LEFT:-530} || break
    timeout 60 /tmp/ct/$bin bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r21d-ab-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $bin $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
ab 1 wgpu "--dims 268435456" 1d
ab 1 wgpu "--size 1G --fields smooth" 2d
ab 2 wgpu "--dims 268435456" 1d
ab 1 cuda "--dims 268435456" 1d
echo "total $(( $(date +%s) - T0 )) s"

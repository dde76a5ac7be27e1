#!/bin/bash
# Round 21, call 4 (prepared in round 21, updated in round 22, not yet run). Kit: the
# kit of next-r21a.sh with KIT_E=scripts/device/patches/chain-walk-shared.patch as well
# (fzwgpu-e). Run after next-r23c.sh (round 23 measured main's round-22 kernels: next-r23a.sh).
#   Round 22 (main): chain_encode and chain_encode_flat are 1-D/2-D forms that call
#   row_d once per step (no plane_d loop over a second row, no loop counter for it);
#   chain_encode_3d / chain_encode_flat_3d (THREE_D) keep the 3-D walk. NVRTC sm_90:
#   chain_encode SASS 6984 -> 6552 (registers 126 -> 128, the same allocation);
#   lavapipe 2-D compression +35-49%, flat +37-41%, 3-D unchanged. And 1-D fields
#   run chain_encode_1d / chain_decode_1d (ONE_D): one step per invocation, no walk
#   state: NVRTC 128 -> 63 and 96 -> 48 registers; lavapipe 1-D compression
#   2.8-3.1x, decompression 2.3-2.4x. The patch leaves the 1-D forms as they are.
#   fzwgpu-e: both chain kernels keep their 32 values of walk state per invocation
#   (chain_encode: the previous step's walked quantity; chain_decode: the columns'
#   running sums along y) in workgroup memory instead of registers (8 vec4 pieces per
#   invocation at k * WG + lid; only the owner touches them, no barrier). NVRTC sm_90
#   on top of round 22: chain_encode 128 -> 78 registers (flat 123 -> 72; the 3-D
#   forms 126 -> 93, 128 -> 95), chain_decode (COALESCE) 96 -> 80, ragged 110 -> 76;
#   without COALESCE (Vulkan's form) 96 -> 62 and 95 -> 64; float64 chain_encode
#   140 -> 118. Round 7's ncu profile: chain_encode latency-bound at 24% occupancy
#   (125 registers); round 20's vkstats: chain_decode 95.
#   Compression runs only chain_encode and decompression only chain_decode, so the
#   A/B's compress column measures one half and its decompress column the other.
#   Lavapipe: tests pass, mutations fail; the walk-state patch is slower there (not
#   the target).
# 1. validation.sh of both chain presets through fzwgpu-e on both backends
#    (eval --compare-cpu on every real field, 3 bounds, f32 and f64)
# 2. A/B main / fzwgpu-e, szp_composed and szp_centered, through Vulkan (the 800 / 1000
#    GB/s targets' gaps are widest there): 2-D smooth 1 GiB and CESM TS tiled to 1 GiB
#    (3-D forms), then 2-D once more; then CUDA 2-D while time is left (the patch
#    leaves the 1-D forms as they are; main against fzwgpu-d was next-r23a.sh)
source .device/setup.sh
VAL_LEFT=230 val r21d-e /tmp/ct/fzwgpu-e "szp_composed szp_centered" 110
ab() { # round backend fields-args label
  for bin in fzwgpu fzwgpu-e; do
    left ${LEFT:-530} || break
    timeout 60 /tmp/ct/$bin bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r21d-ab-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $bin $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
ab 1 wgpu "--size 1G --fields smooth" 2d
ab 1 wgpu "--size 1G --fields tiled" tiled
ab 2 wgpu "--size 1G --fields smooth" 2d
ab 1 cuda "--size 1G --fields smooth" 2d
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 30, call c. Through Vulkan the chain decoders store 32 values per invocation as
# 8 vec4s 128 bytes from the neighbouring invocations' (uncoalesced), and
# chain_decode_1d loses to the walking chain_decode on 1-D fields (r30b, H100:
# szp_centered 448 against 802 GB/s, szp_composed 791 against 862; through CUDA, whose
# form stores through workgroup memory, it wins: 2152 against 2028). Same dispatch and
# per-invocation work in 1-D; the Vulkan driver gives the 1-D form 48 registers, the
# walking one 95 (h200-r23a-vkstats.txt), so about twice the workgroups per SM.
# c: QUAD_STORES (scripts/device/patches/decode-quad-stores.patch): each quad of lanes
#    transposes its values by xor shuffles, so each store instruction writes 64-byte
#    pieces (chain_decode, chain_decode_1d, chain_decode_planes; float32, subgroups,
#    not COALESCE: every Vulkan form, and CUDA's chain_decode_planes)
# b, d: chain_decode_1d with workgroup memory no run touches, capping its workgroups per
#    SM (H100: 228 KiB each): 22 KiB (~10 per SM, the walking form's register limit),
#    32 KiB (~7): is occupancy the 1-D form's loss?
# e: the walking chain_decode with 32 KiB (~7 per SM against ~10)
# last, if time is left: CUDA's 2-D chain_decode with quad stores (c, FZWGPU_COALESCE=0)
#    against its workgroup-memory stores (main)
# Kit: KIT_B=scripts/device/patches/decode1d-occ-22k.patch
#      KIT_C=scripts/device/patches/decode-quad-stores.patch
#      KIT_D=scripts/device/patches/decode1d-occ-32k.patch
#      KIT_E=scripts/device/patches/decode-walk-occ-32k.patch bash scripts/device/kit.sh
source .device/setup.sh
for v in vkstats vkstats-b vkstats-c vkstats-d vkstats-e; do
  timeout 30 /tmp/ct/$v chain_decode > $OUT/r30c-$v.txt 2>&1
  echo "$v: $(grep -E 'chain_decode(_1d)? robust \[' $OUT/r30c-$v.txt | cut -c1-120 | tr '\n' ' ')"
done
run1() { # LABEL BINARY DECODE_1D [FIELD-ARGS [BACKEND [PRESETS]]]
  left ${LEFT:-330} || return 0
  env FZWGPU_DECODE_1D=$3 ${EXTRA:-} timeout 60 /tmp/ct/$2 bench --backend ${5:-wgpu} ${4:---dims 268435456} --reps 3 --presets ${6:-szp_composed,szp_centered} --json $OUT/r30c-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 ${5:-wgpu} decode_1d=$3" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
}
G2="--size 1G --fields smooth"; T="--size 256M --fields tiled"
# (guards: the budget left was ~650 s of device time when this ran)
LEFT=330
run1 c-1d fzwgpu-c off; run1 c-1d fzwgpu-c on; run1 main-1d fzwgpu off; run1 main-1d fzwgpu on
run1 c-2d fzwgpu-c off "$G2"; run1 main-2d fzwgpu off "$G2"
run1 c-tiled fzwgpu-c off "$T" wgpu; run1 main-tiled fzwgpu off "$T" wgpu
run1 c-tiled fzwgpu-c off "$T" cuda; run1 main-tiled fzwgpu off "$T" cuda
run1 b22k-1d fzwgpu-b on; run1 d32k-1d fzwgpu-d on
run1 e32k-2d fzwgpu-e off "$G2"
# CUDA's chain_decode with quad stores instead of its workgroup-memory stores (COALESCE)
LEFT=360 EXTRA=FZWGPU_COALESCE=0 run1 c-nocoal-2d fzwgpu-c off "$G2" cuda; LEFT=370 run1 main-2d fzwgpu off "$G2" cuda
# the first rows again (drift)
LEFT=380 run1 c-2d fzwgpu-c off "$G2"; LEFT=390 run1 main-2d fzwgpu off "$G2"
echo "total $(( $(date +%s) - T0 )) s"

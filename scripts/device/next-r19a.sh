#!/bin/bash
# Round 19, call 1 (prepared in round 18, not yet run).
# Kit: KIT_B=scripts/device/patches/szx-pairs.patch
#   KIT_C=scripts/device/patches/ragged-shift.patch bash scripts/device/kit.sh
#   main   szx_encode8 packs four codes of w <= 8 bits as one 4w-bit piece (round 18);
#          chain_decode_ragged stores float32 through workgroup memory everywhere
#   pairs  fzwgpu-b: and codes of 8 < w <= 16 bits as two 2w-bit pieces
#   shift  fzwgpu-c: chain_decode_ragged without COALESCE (Vulkan) stores aligned
#          16-byte pieces taken across its vec4s by the row's misalignment, component
#          stores at the row's ends (lavapipe, 8190x2048, alternating twice:
#          decompression 0.461-0.468 -> 0.763-0.783 `szp_composed`, 0.372-0.448 ->
#          0.602-0.618 `szp_centered`; round 18's scalar stores gained there and lost 2x
#          on the H200, so only the H200 decides)
#  1. szx through CUDA and Vulkan, main against pairs, twice: the 1 GiB smooth 2-D field
#     (mostly w <= 8), CESM TS tiled to 1 GiB (ratio 4.4: wider codes), the cube;
#  2. both chain presets on 2-D 8190x32768 and 48602x5522 through Vulkan, main against
#     shift, twice (and CUDA with FZWGPU_COALESCE=0 once);
#  3. the kernels test of the kit (main) through both backends.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 250 || return 0
  timeout 60 $2 bench --backend $3 $4 --reps 3 --presets szx --json $OUT/r19a-$1-$3.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $3 $5" '{print t, "compress", $3, "decompress", $8}'
}
for r in 1 2; do
  for f in "--size 1G --fields smooth|2d" "--size 1G --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    for be in cuda wgpu; do
      ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"
      ab pairs /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
    done
  done
done
for r in 1 2; do
  for f in "--dims 8190x32768|2d-8190" "--dims 48602x5522|2d-48602"; do
    chains r19a 440 70 main wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    chains r19a 440 70 shift wgpu "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-c
  done
done
FZWGPU_COALESCE=0 chains r19a 460 70 shift-co0 cuda "--dims 8190x32768" 2d-8190 /tmp/ct/fzwgpu-c
tests_on "kernels" 500 80
echo "total $(( $(date +%s) - T0 )) s"
save_cache

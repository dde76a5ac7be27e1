#!/bin/bash
# Round 19, call 1 (prepared in round 18, not yet run).
# Kit: KIT_B=scripts/device/patches/szx-pairs.patch bash scripts/device/kit.sh
#   main   szx_encode8 packs four codes of w <= 8 bits as one 4w-bit piece (round 18)
#   pairs  fzwgpu-b: and codes of 8 < w <= 16 bits as two 2w-bit pieces
#  1. szx through CUDA and Vulkan, main against pairs, twice: the 1 GiB smooth 2-D field
#     (mostly w <= 8), CESM TS tiled to 1 GiB (ratio 4.4: wider codes), the cube;
#  2. the kernels test of the kit (main) through both backends.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 420 || return 0
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
tests_on "kernels" 500 80
echo "total $(( $(date +%s) - T0 )) s"
save_cache

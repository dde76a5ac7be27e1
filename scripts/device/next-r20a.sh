#!/bin/bash
# Round 20, call 1 (prepared in round 19, not yet run; kit: bash scripts/device/kit.sh).
# Where Vulkan loses against CUDA on the same WGSL: per-dispatch times
# (FZWGPU_PROFILE=1: every dispatch in its own pass with its own timestamps, after the
# pre-heat) of
#   - 1-D 268435456 `szp_composed` and `szp_centered` (round 19: compression 543 / 645
#     through Vulkan against 670 / 701 through CUDA; `szp_composed`'s codes are the
#     widest of the table, ratio 4.18),
#   - 2-D 8192x32768 and CESM TS tiled `szx` (621 / 618 against 804 / 845),
# through both backends, five batched replays, one repetition; then NVRTC's register and
# instruction counts of `chain_encode` and `szx_encode8` are in the kit's cubin cache.
# Prints the batched (x5) per-kernel lines of the last run of each preset.
source .device/setup.sh
for be in wgpu cuda; do
  for f in "--dims 268435456|szp_composed,szp_centered|1d" "--size 1G --fields smooth|szx|2d" "--size 256M --fields tiled|szx|tiled"; do
    left 400 || break
    a=${f%%|*}; r=${f#*|}; p=${r%|*}; l=${r#*|}
    FZWGPU_PROFILE=1 timeout 60 /tmp/ct/fzwgpu bench --backend $be $a --reps 1 --warmup 0 --replays 5 --presets $p > $OUT/r20a-prof-$be-$l.log 2>&1
    echo "== $be $l ($p)"
    grep -E "^sz" $OUT/r20a-prof-$be-$l.log | awk '{print "  ", $1, "compress", $3, "decompress", $8}'
    grep -E " x5 " $OUT/r20a-prof-$be-$l.log | sed 's/profile: profile: *//' | tail -16
  done
done
echo "total $(( $(date +%s) - T0 )) s"

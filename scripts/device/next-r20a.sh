#!/bin/bash
# Round 20, call 1 (prepared in round 19, not yet run; kit:
#   KIT_B=scripts/device/patches/search-unrolled.patch bash scripts/device/kit.sh).
# fzwgpu-b: the compaction kernels' block search (common/group_offsets.wgsl) written out
# step by step instead of a loop that naga bounds with a counter (NVRTC sm_90: the
# same SASS for chain_compact, 264 instructions, and as many for szx_compact: NVRTC
# unrolled the loop already; whether NVIDIA's Vulkan compiler does is the question).
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
# Before the profiles: vkstats (scripts/device/probes/vkstats, below).
source .device/setup.sh
# 1. The Vulkan driver's own statistics (VK_KHR_pipeline_executable_properties) of the
#    kernels as wgpu builds them, and with the device's robustness off (with naga's
#    clamps, and with no checks at all): registers and instruction counts to set
#    beside NVRTC's (`cuobjdump -res-usage`); the internal representation of
#    szx_encode8 and chain_encode where the driver offers one (files in $OUT)
k="szx_encode8 chain_encode chain_encode_flat chain_decode chain_decode_ragged chain_compact szx_compact szx_range_partial chain_scan_x"
timeout 60 /tmp/ct/vkstats $k > $OUT/r20a-vkstats.txt 2>&1; echo "vkstats rc=$?"
timeout 60 /tmp/ct/vkstats --coalesce chain_decode chain_decode_ragged chain_scan_x >> $OUT/r20a-vkstats.txt 2>&1
cut -c1-400 $OUT/r20a-vkstats.txt | head -60
timeout 60 /tmp/ct/vkstats --ir szx_encode8 chain_encode > $OUT/r20a-vkstats-ir.txt 2>&1; echo "ir rc=$? $(wc -c < $OUT/r20a-vkstats-ir.txt) bytes"
grep -E "^---" $OUT/r20a-vkstats-ir.txt | head
# 2. per-dispatch profiles
for be in wgpu cuda; do
  for f in "--dims 268435456|szp_composed,szp_centered|1d" "--size 1G --fields smooth|szx|2d" "--size 256M --fields tiled|szx|tiled"; do
    left 300 || break
    a=${f%%|*}; r=${f#*|}; p=${r%|*}; l=${r#*|}
    FZWGPU_PROFILE=1 timeout 60 /tmp/ct/fzwgpu bench --backend $be $a --reps 1 --warmup 0 --replays 5 --presets $p > $OUT/r20a-prof-$be-$l.log 2>&1
    echo "== $be $l ($p)"
    grep -E "^sz" $OUT/r20a-prof-$be-$l.log | awk '{print "  ", $1, "compress", $3, "decompress", $8}'
    grep -E " x5 " $OUT/r20a-prof-$be-$l.log | sed 's/profile: profile: *//' | tail -16
  done
done
# 3. main against search-unrolled through Vulkan (twice) and CUDA (once): 1-D
#    szp_composed (ratio 4.18: the most payload words to compact) and 2-D szx
for r in 1 2; do
  for be in wgpu cuda; do
    [ $r = 2 ] && [ $be = cuda ] && continue
    for bin in fzwgpu fzwgpu-b; do
      left 540 || break
      timeout 60 /tmp/ct/$bin bench --backend $be --dims 268435456 --reps 3 --presets szp_composed --json $OUT/r20a-ab-$bin-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$r $bin $be 1d" '{print t, $1, "compress", $3, "decompress", $8}'
      timeout 60 /tmp/ct/$bin bench --backend $be --size 1G --fields smooth --reps 3 --presets szx --json $OUT/r20a-ab-$bin-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$r $bin $be 2d" '{print t, $1, "compress", $3, "decompress", $8}'
    done
  done
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 20, call 1 (prepared in round 19, not yet run). Kit:
#   KIT_B=scripts/device/patches/search-unrolled.patch \
#   KIT_C=scripts/device/patches/compact-vec4.patch bash scripts/device/kit.sh
#   fzwgpu-b: the compaction kernels' block search written out step by step instead of
#     a loop that naga bounds with a counter (NVRTC sm_90: the same SASS for
#     chain_compact, 264 instructions; 272 for szx_compact either way)
#   fzwgpu-c: chain_compact moves four words (one vec4) per search where blocks hold
#     128 values or more (szp_composed; szp_centered's blocks of 32 keep one word, now
#     through vec4 bindings); NVRTC 408 SASS instructions, 22 registers; lavapipe, 1-D
#     16M szp_composed, alternating twice: compression 0.161 / 0.159 -> 0.166 / 0.174
# Where Vulkan loses against CUDA on the same WGSL (round 19: szx 621 / 804, 1-D
# szp_composed 543 / 670 compression):
#  1. vkstats: the Vulkan driver's own statistics (VK_KHR_pipeline_executable_properties)
#     of the kernels as wgpu builds them, without naga's loop counters, and with the
#     device's robustness off (with naga's clamps, and with no checks at all); the
#     internal representation of szx_encode8 and chain_encode where the driver offers
#     one (files in $OUT)
#  2. per-dispatch profiles (FZWGPU_PROFILE=1: every dispatch in its own pass with its
#     own timestamps, after the pre-heat) of 1-D szp_composed and szp_centered and of
#     2-D szx, through both backends; the batched (x5) lines printed
#  3. main against fzwgpu-b and fzwgpu-c, one round through each backend: 1-D
#     szp_composed (ratio 4.18: the most payload words to compact), 2-D szp_composed
source .device/setup.sh
k="szx_encode8 chain_encode chain_encode_flat chain_decode chain_decode_ragged chain_compact szx_compact szx_range_partial chain_scan_x"
timeout 60 /tmp/ct/vkstats $k > $OUT/r20a-vkstats.txt 2>&1; echo "vkstats rc=$?"
timeout 60 /tmp/ct/vkstats --coalesce chain_decode chain_decode_ragged chain_scan_x >> $OUT/r20a-vkstats.txt 2>&1
cut -c1-300 $OUT/r20a-vkstats.txt | head -48
timeout 60 /tmp/ct/vkstats --ir szx_encode8 chain_encode > $OUT/r20a-vkstats-ir.txt 2>&1; echo "ir rc=$? $(wc -c < $OUT/r20a-vkstats-ir.txt) bytes"
grep -E "^---" $OUT/r20a-vkstats-ir.txt | head -6
for be in wgpu cuda; do
  for f in "--dims 268435456|szp_composed,szp_centered|1d" "--size 1G --fields smooth|szx|2d"; do
    left 240 || break
    a=${f%%|*}; r=${f#*|}; p=${r%|*}; l=${r#*|}
    FZWGPU_PROFILE=1 timeout 60 /tmp/ct/fzwgpu bench --backend $be $a --reps 1 --warmup 0 --replays 5 --presets $p > $OUT/r20a-prof-$be-$l.log 2>&1
    echo "== $be $l ($p)"
    grep -E "^sz" $OUT/r20a-prof-$be-$l.log | awk '{print "  ", $1, "compress", $3, "decompress", $8}'
    grep -E " x5 " $OUT/r20a-prof-$be-$l.log | sed 's/profile: profile: *//' | tail -14
  done
done
for be in wgpu cuda; do
  for bin in fzwgpu fzwgpu-b fzwgpu-c; do
    left 510 || break
    timeout 40 /tmp/ct/$bin bench --backend $be --dims 268435456 --reps 3 --presets szp_composed --json $OUT/r20a-ab-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $be 1d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
    timeout 40 /tmp/ct/$bin bench --backend $be --size 1G --fields smooth --reps 3 --presets szp_composed --json $OUT/r20a-ab-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $be 2d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
  done
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 15, call 1 (prepared 2026-12-04, not yet run): the 2-D/3-D chain inverse after
# round 14's device time, three ways on the same fields:
#   main          chain_scan (chain_scan_x extracting the residuals itself, with the
#                 subgroup team scan; lorenzo_scan_axis along y in 3-D; chain_scan_last
#                 dequantizing the last axis): no bitpack_unpack, no quant_decode pass
#   main-staged   the same binary with FZWGPU_CHAIN_SCAN=off: auto stages these inverses
#                 (bitpack_unpack, lorenzo_scan_x with the subgroup team scan, two
#                 lorenzo_scan_axis, quant_decode)
#   before        fzwgpu-b = 49ae33f (KIT_B=49ae33f): round 14's kept tree, staged with
#                 the shared-memory team scan (never measured as a whole)
# r14c/d put the tiled 3-D inverse at ~1.2-1.4 ms per 256 MiB (Vulkan): bitpack_unpack
# 0.235, lorenzo_scan_x 0.41, lorenzo_scan_axis x2 0.30, quant_decode 0.19.
#  1. szp_composed and szp_centered: CESM TS tiled (3-D, 256 MiB) and a 1024x1024x256
#     cube, the three alternating, through CUDA and Vulkan;
#  2. per-dispatch GPU times of the three (Vulkan, tiled);
#  3. main's validation of both chain presets through both backends.
source .device/setup.sh
# (fzwgpu-b predates FZWGPU_CHAIN_SCAN, and an unknown FZWGPU_ variable is an error:
# it runs with a neutral NOTHING=1)
ab() { # label backend field-args field-label binary [env]
  left 330 || return 0
  env ${6:-FZWGPU_CHAIN_SCAN=on} timeout 60 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r15a-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab main-staged $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu FZWGPU_CHAIN_SCAN=off
    ab before $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b NOTHING=1
  done
done
for v in "main|fzwgpu|FZWGPU_CHAIN_SCAN=on" "main-staged|fzwgpu|FZWGPU_CHAIN_SCAN=off" "before|fzwgpu-b|NOTHING=1"; do
  IFS='|' read -r label bin e <<< "$v"
  env $e FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$bin bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered > $OUT/r15a-prof-$label.log 2>&1
  echo "profile $label:"; awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' $OUT/r15a-prof-$label.log | grep "profile:" | tail -9
done
VAL_LEFT=450 val r15a /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

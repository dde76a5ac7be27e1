#!/bin/bash
# Round 15, call 2: segment_scan's short runs (runs of <= 4 values read their residuals
# once, together, and keep them in registers; chain_scan_x looks a run's block width
# and offset up once). r15a profiled chain_scan_x at 0.602 of the tiled inverse's
# 0.987 ms (Vulkan, szp_centered, 256 MiB).
#   main     this tree
#   before   fzwgpu-b = 723d6eb (KIT_B=723d6eb): chain_scan as measured in r15a
#  1. szp_composed and szp_centered: CESM TS tiled (3-D, 256 MiB) and a 1024x1024x256
#     cube, alternating, through CUDA and Vulkan;
#  2. per-dispatch GPU times of both (Vulkan, tiled) and of main's staged inverse
#     (FZWGPU_CHAIN_SCAN=off, lorenzo_scan_x shares segment_scan);
#  3. the 2-D 1 GiB field: chain_decode (auto) against chain_scan (FZWGPU_CHAIN_DECODE=off);
#  4. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label backend field-args field-label binary [env]
  left 330 || return 0
  env ${6:-NOTHING=1} timeout 60 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r15b-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab before $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
  ab main $be "--size 1G --fields smooth" 2d-decode /tmp/ct/fzwgpu
  ab main-scan $be "--size 1G --fields smooth" 2d-scan /tmp/ct/fzwgpu FZWGPU_CHAIN_DECODE=off
done
for v in "main|fzwgpu|NOTHING=1" "before|fzwgpu-b|NOTHING=1" "main-staged|fzwgpu|FZWGPU_CHAIN_SCAN=off"; do
  IFS='|' read -r label bin e <<< "$v"
  env $e FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$bin bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered > /tmp/r15b-prof-$label.log 2>&1
  echo "profile $label:"; awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' /tmp/r15b-prof-$label.log | grep "profile:" | tail -9
done
VAL_LEFT=450 val r15b /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"

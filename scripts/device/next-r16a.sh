#!/bin/bash
# Round 16, call 1 (prepared 2026-12-04 after round 15's device time, not yet run).
# Kit: KIT_B=scripts/device/patches/scan-branchless.patch bash scripts/device/kit.sh
#   main        the tree as round 15 left it: chain_scan_x's SEGS = 4 only in the
#               CUDA-tuned variant, SEGS = 1 through Vulkan (never run as a whole)
#   branchless  fzwgpu-b = main + patches/scan-branchless.patch: residuals4_at's four
#               codes extracted with no branch (both words loaded, masked), zigzag on
#               a vec4 (r15c-e: chain_scan_x is bound by instruction issue)
#  1. szp_composed and szp_centered, CESM TS tiled (3-D, 256 MiB) and the
#     1024x1024x256 cube, alternating, through CUDA and Vulkan (main's Vulkan rows
#     should match r15d's 369 / 344 tiled, 440 / 427 cube);
#  2. small 2-D fields, which auto stages for want of chain_decode invocations: the
#     staged inverse (default) against chain_scan (FZWGPU_CHAIN_DECODE=off);
#  3. ncu of both chain_scan_x (CUDA): instructions, time;
#  4. ncu of chain_encode on the tiled field (CUDA, szp_centered): the compression gap
#     left against native cuSZp;
#  5. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label backend field-args field-label binary [env]
  left 260 || return 0
  env ${6:-NOTHING=1} timeout 60 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r16a-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab branchless $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
  for d in 512x512 2048x2048; do
    ab staged $be "--dims $d" "2d-$d" /tmp/ct/fzwgpu
    ab scan $be "--dims $d" "2d-$d" /tmp/ct/fzwgpu FZWGPU_CHAIN_DECODE=off
  done
done
for v in "main|fzwgpu" "branchless|fzwgpu-b"; do
  IFS='|' read -r label bin <<< "$v"
  timeout 60 /usr/local/cuda/bin/ncu -k "regex:chain_scan_x" -c 1 --metrics "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed" /tmp/ct/$bin bench --backend cuda --size 256M --fields tiled --reps 1 --warmup 0 --replays 0 --presets szp_centered 2>&1 | grep -E "inst_exec|issue|lts__|duration" | sed "s/^/ncu $label: /"
done
# the tiled field's compression (r15a: chain_encode 0.56 of 0.83 ms through Vulkan, 4104
# workgroups; 306 / 374 GB/s CUDA against cuSZp's 332-386): what limits chain_encode there
timeout 60 /usr/local/cuda/bin/ncu -k "regex:chain_encode" -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats --metrics "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_(long_scoreboard|wait|barrier|no_instruction|short_scoreboard|not_selected|math_pipe_throttle|lg_throttle)_per_issue_active\.ratio" /tmp/ct/fzwgpu bench --backend cuda --size 256M --fields tiled --reps 1 --warmup 0 --replays 0 --presets szp_centered > $OUT/r16a-ncu-encode.txt 2>&1
grep -E "Duration|Throughput|inst_exec|issue_active|stalled|Registers|Occupancy|Grid Size|Block Size|Waves" $OUT/r16a-ncu-encode.txt | cut -c1-130 | sed "s/^/ncu encode: /"
VAL_LEFT=330 val r16a /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 15, call 5: chain_scan_x with SEGS = 4 segments of one row per team (the row's
# divisions and centering test paid once per four segments) against round 15d's main.
#   main     this tree
#   before   fzwgpu-b = 6011611 (KIT_B=6011611): r15d's main
#  1. szp_composed and szp_centered, CESM TS tiled (3-D, 256 MiB) and the
#     1024x1024x256 cube, alternating, through CUDA and Vulkan;
#  2. per-dispatch GPU times of both (Vulkan, tiled, szp_centered);
#  3. ncu of both chain_scan_x (CUDA): instructions, issue, L2;
#  4. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label backend field-args field-label binary
  left 200 || return 0
  timeout 60 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r15e-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab before $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
done
for v in "main|fzwgpu" "before|fzwgpu-b"; do
  IFS='|' read -r label bin <<< "$v"
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$bin bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered > /tmp/r15e-prof-$label.log 2>&1
  echo "profile $label:"; awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' /tmp/r15e-prof-$label.log | grep "profile:" | grep -E "span|scan"
  timeout 60 /usr/local/cuda/bin/ncu -k "regex:chain_scan_x" -c 1 --metrics "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_write.sum,gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active" /tmp/ct/$bin bench --backend cuda --size 256M --fields tiled --reps 1 --warmup 0 --replays 0 --presets szp_centered 2>&1 | grep -E "inst_exec|issue|lts__|duration|warps_active" | sed "s/^/ncu $label: /"
done
VAL_LEFT=300 val r15e /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"

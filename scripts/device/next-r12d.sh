#!/bin/bash
# Round 12, call 4 (run 2026-12-04, 364 s, kit 94dd4ff; log docs/results/h200-r12d.log): kit of main after 1d4cc99 (decoding copies
# only the meta regions out of the archive, not the whole archive).
#  1. end to end, 1 GiB 2-D and 1-D, three presets, both backends (--replays 1):
#     decompression's host phase and 'dec into' against round 12a's;
#  2. szx_encode8's workgroup cap (FZWGPU_ENCODE_GROUPS; default 4096): 528 = 132 SMs
#     x 4 resident workgroups through CUDA, and multiples, through both backends;
#  3. ncu of szx_encode8 (256 MiB 2-D): where its warps stall.
source .device/setup.sh
for be in cuda wgpu; do for f in "--size 1G --fields smooth" "--dims 268435456"; do left 300 || break
  timeout 90 /tmp/ct/fzwgpu bench --backend $be $f --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r12d-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be $f: /"
done; done
for be in cuda wgpu; do for g in 528 1056 2112 4096 8192; do left 420 || break
  FZWGPU_ENCODE_GROUPS=$g timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --presets szx 2>&1 | grep -E "^szx" | awk -v t="$be 2-D groups=$g" '{print t, "compress", $3}'
done; done
if left 480; then
  timeout 60 /usr/local/cuda/bin/ncu -k regex:szx_encode8 -c 1 --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active" /tmp/ct/fzwgpu bench --backend cuda --size 256M --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > $OUT/r12d-ncu-stalls.txt 2>&1
  grep -E "stalled|inst_exec|duration|warps_active|issue_active" $OUT/r12d-ncu-stalls.txt | awk '$NF+0 > 0.05 || /inst|duration|active/' | sed "s/^/ncu: /"
fi
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 13, call 1 (prepared 2026-12-04, not yet run): szx_encode8 with compact value
# paths (fzwgpu-b = scripts/device/patches/encode8-compact.patch; build the kit with
# KIT_B=scripts/device/patches/encode8-compact.patch) against main. Round 12's ncu put
# szx_encode8's largest stall at no_instruction (4.58 cycles per issue, 118 KB of
# sm_90 code: 7392 instructions); the patch keeps one vector test per lane for the
# usual case and loops once over the lane's 16 values for the rare value-by-value
# checks (5768 instructions, 64 registers, 32 B stack). Through lavapipe it compressed
# 1.85x (2-D), 1.86x (tiled) and 2.1x (1-D) faster.
#  1. szx 2-D (1 GiB) twice, 1-D and CESM TS tiled once, main / compact alternating,
#     through CUDA and Vulkan;
#  2. fzwgpu-b's validation of szx through both backends;
#  3. ncu of both (256 MiB 2-D): time, instructions, stalls;
#  4. main end to end (--replays 1): decompression's host.copy / host.record phases
#     after the vectorized AdaptiveBitpack meta scan (szp_centered's host phase was
#     37-46 ms per GiB in r12d).
# If it wins and validates: merge the patch, rebuild the kit and run suite.sh.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 300 || return 0
  timeout 60 $2 bench --backend $3 $4 --reps 3 --presets szx --json $OUT/r13a-$1-$3.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $3 $5" '{print t, "compress", $3, "decompress", $8, "ratio", $2}'
}
for be in cuda wgpu; do
  for f in "--size 1G --fields smooth|2-D" "--size 1G --fields smooth|2-D" "--dims 268435456|1-D" "--size 256M --fields tiled|tiled"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab compact /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
for be in cuda wgpu; do left 420 || break
  B=/tmp/ct/fzwgpu-b EXTRA="--backend $be" PRESETS="szx" timeout 75 bash .device/validation.sh > $OUT/r13a-val-$be.log 2>&1
  echo "validation compact $be: $(grep -cE '^szx' $OUT/r13a-val-$be.log) passed, $(grep -c '^FAIL' $OUT/r13a-val-$be.log) failed, $(grep -c ALL_DONE $OUT/r13a-val-$be.log) done"
  grep '^FAIL' $OUT/r13a-val-$be.log | cut -c1-160 | head -3
done
for b in fzwgpu fzwgpu-b; do left 520 || break
  timeout 40 /usr/local/cuda/bin/ncu -k regex:szx_encode8 -c 1 --metrics "regex:smsp__average_warps_issue_stalled_(no_instruction|wait|not_selected|long_scoreboard|math_pipe_throttle|short_scoreboard|branch_resolving)_per_issue_active\.ratio,smsp__inst_executed.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active" /tmp/ct/$b bench --backend cuda --size 256M --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx 2>&1 | grep -E "stalled|inst_exec|duration|active" | sed "s/^/ncu $b: /"
done
for be in cuda wgpu; do left 540 || break
  timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szp_composed,szp_centered --json $OUT/r13a-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

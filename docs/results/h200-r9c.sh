#!/bin/bash
# 2026-12-03 (round 9, call 3): exp/compact-search's archives against the cpu backend on
# every real field (eval --compare-cpu: 3 presets x 12 fields x 3 bounds x f32/f64)
# through CUDA and Vulkan; its szx_compact / chain_compact under Nsight Compute next to
# main's.
source .device/cuda-setup.sh
T0=$(date +%s)
for be in cuda wgpu; do E=""; [ $be = cuda ] && E="--backend cuda"
  B=/tmp/ct/fzwgpu-cuda-cs EXTRA="$E" timeout 250 bash .device/h200-validation.sh > $OUT/val-cs-$be.log 2>&1
  echo "validation cs $be: $(grep -cE '^sz' $OUT/val-cs-$be.log) evals, FAIL $(grep -c FAIL $OUT/val-cs-$be.log), $(tail -1 $OUT/val-cs-$be.log | cut -c1-40) t=$(( $(date +%s) - T0 )) s"
done
M=smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread,dram__bytes.sum
for v in r9 cs; do for k in szx_compact chain_compact; do p=szx; [ $k = chain_compact ] && p=szp_composed
  echo "== ncu $v $k"; timeout 45 /usr/local/cuda/bin/ncu -k $k -c 1 --metrics $M /tmp/ct/fzwgpu-cuda-$v bench --backend cuda --size 1G --reps 1 --warmup 0 --replays 0 --presets $p 2>&1 | grep -E "inst_exec|warps_active|issue_active|duration|registers|dram__bytes"
done; done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

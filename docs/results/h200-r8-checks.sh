#!/bin/bash
# 2026-12-03 (round 8): after next-r8a / next-r8c, the winners' checks on the H200.
#   r7 = exp/szx-pack-fast 9aafa99 (szx), cnf2 = exp/chain-encode-nf a2b786d (chain)
# cnf2's kernel and fused-chain twins through both backends; real-field validation
# (eval --compare-cpu, every field at 3 bounds, f32 and f64) of szx with r7 and of the
# chain presets with cnf2 through both backends; ncu of cnf2's chain_encode.
source .device/cuda-setup.sh
for t in kernels-cnf2 fusion-cnf2; do for be in cuda wgpu; do echo "== $t $be"; FZWGPU_TEST_BACKEND=$be timeout 40 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"; done; done
for be in cuda wgpu; do E=""; [ $be = cuda ] && E="--backend cuda"
  B=/tmp/ct/fzwgpu-cuda-r7 PRESETS=szx EXTRA="$E" NO_DEMO=1 timeout 100 bash .device/h200-validation.sh > $OUT/val-r7-$be.log 2>&1
  B=/tmp/ct/fzwgpu-cuda-cnf2 PRESETS="szp_composed szp_centered" EXTRA="$E" NO_DEMO=1 timeout 150 bash .device/h200-validation.sh > $OUT/val-cnf2-$be.log 2>&1
  echo "validation $be: r7 $(grep -cE '^sz' $OUT/val-r7-$be.log) evals FAIL $(grep -c FAIL $OUT/val-r7-$be.log); cnf2 $(grep -cE '^sz' $OUT/val-cnf2-$be.log) evals FAIL $(grep -c FAIL $OUT/val-cnf2-$be.log) $(tail -1 $OUT/val-cnf2-$be.log | cut -c1-40)"
done
echo "== ncu cnf2 chain_encode"; timeout 40 /usr/local/cuda/bin/ncu -k chain_encode -c 1 --metrics smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread /tmp/ct/fzwgpu-cuda-cnf2 bench --backend cuda --size 256M --reps 1 --warmup 0 --replays 0 --presets szp_composed 2>&1 | grep -E "inst_exec|warps_active|issue_active|duration|registers"

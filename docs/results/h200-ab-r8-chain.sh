#!/bin/bash
# Run 2026-12-03 (round 8) on the H200: chain_encode with fewer instructions.
#   r6 = main (fzwgpu-cuda, 1977d80); cnf = exp/chain-encode-nf 527f9b5 (flush-free
#   vector quantization); cnf2 = a2b786d (+ packing in 4w / 2w-bit pieces)
# Kernel GB/s, 1 GiB 2-D and 1-D, alternating; ncu of cnf2's chain_encode (256 MiB;
# r6: 184.5 M instructions, 24% occupancy); cnf2's kernel and fused-chain twins. ~420 s (it ran 560 s and was stopped before the ncu and twin steps; next-r8d ran those).
source .device/cuda-setup.sh
run() { B=/tmp/ct/fzwgpu-cuda; [ $2 != r6 ] && B=/tmp/ct/fzwgpu-cuda-$2
  timeout 30 $B bench --backend $1 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r8c-$1-$2.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$1 $2 $3 /"; }
for f in "--size 1G" "--dims 268435456"; do for be in cuda wgpu; do for v in cnf2 cnf r6 cnf2 cnf r6; do run $be $v "$f"; done; done; done
echo "== ncu cnf2 chain_encode"; timeout 40 /usr/local/cuda/bin/ncu -k chain_encode -c 1 --metrics smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread /tmp/ct/fzwgpu-cuda-cnf2 bench --backend cuda --size 256M --reps 1 --warmup 0 --replays 0 --presets szp_composed 2>&1 | grep -E "inst_exec|warps_active|issue_active|duration|registers"
for t in kernels-cnf2 fusion-cnf2; do for be in cuda wgpu; do echo "== $t $be"; FZWGPU_TEST_BACKEND=$be timeout 40 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"; done; done

#!/bin/bash
# Run 2026-12-03 (round 8) on the H200: szx_encode with fewer instructions.
#   r6 = main (fzwgpu-cuda, built at 1977d80); r7 = exp/szx-pack-fast 9aafa99
# Kernel GB/s on the 1 GiB 2-D field (quantized blocks) and the 1-D one (all constant),
# alternating; ncu's executed instructions of r7's szx_encode (256 MiB; r6: 347.5 M,
# 663 per block); r7's kernel twins through both backends. ~200 s.
source .device/cuda-setup.sh
run() { B=/tmp/ct/fzwgpu-cuda; [ $2 != r6 ] && B=/tmp/ct/fzwgpu-cuda-$2
  timeout 30 $B bench --backend $1 $3 --reps 3 --presets $4 --json $OUT/r8-$1-$2.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$1 $2 $3 /"; }
for f in "--size 1G" "--dims 268435456"; do for be in cuda wgpu; do for v in r7 r6 r7 r6; do run $be $v "$f" szx; done; done; done
echo "== ncu r7 szx_encode"; timeout 40 /usr/local/cuda/bin/ncu -k szx_encode -c 1 --metrics smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,launch__registers_per_thread /tmp/ct/fzwgpu-cuda-r7 bench --backend cuda --size 256M --reps 1 --warmup 0 --replays 0 --presets szx 2>&1 | grep -E "inst_exec|warps_active|issue_active|duration|registers"
for be in cuda wgpu; do echo "== kernels-r7 $be"; FZWGPU_TEST_BACKEND=$be timeout 40 /tmp/ct/kernels-r7 --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"; done

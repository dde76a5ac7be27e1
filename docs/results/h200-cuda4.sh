#!/bin/bash
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
echo "== test kernels (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 100 /tmp/ct/kernels --test-threads 2 2>&1 | grep -E "^test |test result|panicked|differs|violat" | grep -v " ok$" | head -12
for be in cuda wgpu; do
  echo "== bench 2-D 1G $be"; timeout 100 $B bench --backend $be --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/cuda4.jsonl 2>&1 | grep -E "^sz|copy|adapter"
done
echo "== validation (cuda vs cpu)"
B=/tmp/ct/fzwgpu-cuda EXTRA="--backend cuda" PRESETS="szx szp_composed szp_centered" NO_DEMO=1 timeout 200 bash .device/h200-validation.sh > $OUT/validation-cuda.log 2>&1; grep -cE "^sz" $OUT/validation-cuda.log; grep -E "FAIL|ALL_DONE" $OUT/validation-cuda.log | head
for be in cuda wgpu; do
  echo "== bench 1-D 1G $be"; timeout 80 $B bench --backend $be --dims 268435456 --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/cuda4.jsonl 2>&1 | grep -E "^sz"
done
echo "== bench 2-D cuda checks off"; FZWGPU_CUDA_CHECKS=off timeout 80 $B bench --backend cuda --size 1G --reps 3 --presets szx,szp_composed,szp_centered 2>&1 | grep -E "^sz"

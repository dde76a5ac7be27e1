#!/bin/bash
# The CUDA column beside wgpu-Vulkan, one build (the szx_encode / szx_compact change),
# one run: szx, szp_composed, szp_centered, 2-D 8192x32768 and 1-D, 1 GiB NOA 1e-3;
# then szx validated against the cpu backend on every field through both backends.
source .device/cuda-setup.sh
N=/tmp/ct/fzwgpu-cuda-new2
for be in cuda wgpu; do
  timeout 110 $N bench --backend $be --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/c8b-table.jsonl 2>&1 | grep -E "^sz" | sed "s/^/2-D $be /"
  timeout 110 $N bench --backend $be --dims 268435456 --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/c8b-table.jsonl 2>&1 | grep -E "^sz" | sed "s/^/1-D $be /"
done
B=$N EXTRA="--backend cuda" PRESETS=szx NO_DEMO=1 timeout 100 bash .device/h200-validation.sh > $OUT/c8b-validation-cuda.log 2>&1
echo "cuda szx evals: $(grep -cE '^szx' $OUT/c8b-validation-cuda.log), FAIL: $(grep -c FAIL $OUT/c8b-validation-cuda.log)"
B=$N PRESETS=szx NO_DEMO=1 timeout 100 bash .device/h200-validation.sh > $OUT/c8b-validation-wgpu.log 2>&1
echo "wgpu szx evals: $(grep -cE '^szx' $OUT/c8b-validation-wgpu.log), FAIL: $(grep -c FAIL $OUT/c8b-validation-wgpu.log)"

#!/bin/bash
# Ran 2026-12-03 (log h200-cuda7.log, JSON h200-cuda7.jsonl, validation h200-cuda7-validation.log).
# Next H200 session: szx_unpack's per-block guard (cuda-guarded) against Vulkan, the
# wgpu fault sweep with the shared instance, the rest of the szp_composed validation on
# cuda, and the straddling-rows chain_encode runs. Fits one 600 s call.
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
export FZWGPU_BIN=$B
for t in kernels faults; do
  echo "== test $t (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 120 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "^test |test result|panicked|NoAdapter" | grep -v " ok$" | head -8
done
for r in 1 2; do for be in cuda wgpu; do
  timeout 60 $B bench --backend $be --size 1G --reps 3 --presets szx --json $OUT/cuda7-szx.jsonl 2>&1 | grep -E "^sz" | sed "s/^/r$r $be /"
done; done
B=$B EXTRA="--backend cuda" PRESETS="szp_composed" NO_DEMO=1 timeout 150 bash .device/h200-validation.sh > $OUT/validation-cuda7.log 2>&1; grep -cE "^sz" $OUT/validation-cuda7.log; grep -c FAIL $OUT/validation-cuda7.log
for e in on off; do
  FZWGPU_CHAIN_ENCODE=$e timeout 50 $B bench --backend wgpu -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed 2>&1 | grep -E "^sz" | sed "s/^/encode=$e /"
  FZWGPU_CHAIN_ENCODE=$e timeout 50 $B bench --backend wgpu --dims 8160x32896 --reps 3 --presets szp_composed 2>&1 | grep -E "^sz" | sed "s/^/encode=$e /"
done

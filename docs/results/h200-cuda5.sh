#!/bin/bash
# PREPARED, NOT YET RUN (written 2026-12-03 after the device budget was spent).
# Longer than one 600 s call: split it into two or three runs.
# Next CUDA session on the H200: the whole suite on cuda after the transfer-ordering
# fix, interop, validation of every preset, clamp-mode and staging measurements,
# and the pending straddling-rows run through Vulkan.
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
export FZWGPU_BIN=$B
$B adapters 2>&1 | tail -2
for t in cuda_interop kernels fusion stages adversarial adversarial_szp real_data chunks wavelet format concurrency resources stream pipeline transfers; do
  echo "== test $t (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 120 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "^test |test result|panicked|differs|violat" | grep -v " ok$" | head -12
done
for m in on clamp; do
  echo "== bench 2-D 1G cuda checks=$m"; FZWGPU_CUDA_CHECKS=$m timeout 100 $B bench --backend cuda --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/cuda5-$m.jsonl 2>&1 | grep -E "^sz|copy"
done
for b in 10 12; do
  echo "== bench 2-D 1G cuda min_blocks=$b"; FZWGPU_CUDA_MINBLOCKS=$b timeout 100 $B bench --backend cuda --size 1G --reps 3 --presets szp_composed,szp_centered 2>&1 | grep -E "^sz"
done
echo "== bench 2-D 1G wgpu"; timeout 100 $B bench --backend wgpu --size 1G --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/cuda5-wgpu.jsonl 2>&1 | grep -E "^sz|copy"
echo "== validation (cuda vs cpu), every preset"
B=$B EXTRA="--backend cuda" PRESETS="szx szp_composed szp_centered szp sperr_gpu" NO_DEMO=1 timeout 240 bash .device/h200-validation.sh > $OUT/validation-cuda5.log 2>&1; grep -cE "^sz" $OUT/validation-cuda5.log; grep -E "FAIL|ALL_DONE" $OUT/validation-cuda5.log | head
for be in cuda wgpu; do
  echo "== bench 1-D 1G $be"; timeout 90 $B bench --backend $be --dims 268435456 --reps 3 --presets szp_composed,szp_centered --json $OUT/cuda5-$be.jsonl 2>&1 | grep -E "^sz"
done
echo "== straddling rows (wgpu): CESM tiled and 8160x32896, szp_composed"
for e in on off; do
  FZWGPU_CHAIN_ENCODE=$e timeout 60 $B bench --backend wgpu -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --reps 3 --presets szp_composed 2>&1 | grep -E "^sz" | sed "s/^/encode=$e /"
  FZWGPU_CHAIN_ENCODE=$e timeout 60 $B bench --backend wgpu --dims 8160x32896 --reps 3 --presets szp_composed 2>&1 | grep -E "^sz" | sed "s/^/encode=$e /"
done

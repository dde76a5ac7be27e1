#!/bin/bash
# Round 16, call 4 (kit of 5dfa6ee, the final tree's kernels): the new 3-D walks and the
# small-2-D route through both backends on the H200: the kernel, fusion and SZp
# adversarial tests, then the chain presets' validation with walks forced to 8
# planes/rows (FZWGPU_CHAIN_WALK=8: the real fields are too small for auto to walk),
# through CUDA.
source .device/setup.sh
for be in cuda wgpu; do
  for b in kernels fusion adversarial_szp; do
    left 200 || break
    s=$(date +%s)
    r=$(FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ct/$b --test-threads 8 2>&1)
    echo "$be $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
    echo "$r" | grep -E "FAILED|panicked" | head -5
  done
done
if left 200; then
  FZWGPU_CHAIN_WALK=8 B=/tmp/ct/fzwgpu EXTRA="--backend cuda" PRESETS="szp_composed szp_centered" timeout 90 bash .device/validation.sh > $OUT/r16d-val-walk8-cuda.log 2>&1
  echo "validation walk 8 cuda: $(grep -cE '^sz' $OUT/r16d-val-walk8-cuda.log) passed, $(grep -c '^FAIL' $OUT/r16d-val-walk8-cuda.log) failed, $(grep -c ALL_DONE $OUT/r16d-val-walk8-cuda.log) done"
fi
echo "total $(( $(date +%s) - T0 )) s"

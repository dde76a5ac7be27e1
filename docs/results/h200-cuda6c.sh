#!/bin/bash
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
echo "== validation (cuda vs cpu): szp_centered szp sperr_gpu szp_composed"
s=$(date +%s)
B=$B EXTRA="--backend cuda" PRESETS="szp_centered szp sperr_gpu szp_composed" NO_DEMO=1 timeout 400 bash .device/h200-validation.sh > $OUT/validation-cuda6.log 2>&1; echo "rc=$? $(( $(date +%s)-s ))s"; grep -cE "^sz" $OUT/validation-cuda6.log; grep -E "FAIL|ALL_DONE" $OUT/validation-cuda6.log | head
for p in szp_centered szp sperr_gpu szp_composed; do echo "$p $(grep -c "^$p " $OUT/validation-cuda6.log) ok"; done

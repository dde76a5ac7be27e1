#!/bin/bash
source .device/cuda-setup.sh
for t in kernels real_data chunks wavelet faults format concurrency resources stream pipeline transfers; do
  echo "== test $t (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 100 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "^test |test result|panicked|differs|violat" | grep -v " ok$" | head -12
done
echo "== validation (cuda vs cpu)"
B=/tmp/ct/fzwgpu-cuda EXTRA="--backend cuda" PRESETS="szx szp_composed szp_centered" NO_DEMO=1 timeout 250 bash .device/h200-validation.sh 2>&1 | grep -E "FAIL|ALL_DONE" | head -20

#!/bin/bash
# 2026-12-03, round 7: the test suite at 27cecce (round 6 + mends) on the H200
# through BE (cuda or wgpu), then the szx / szp_composed / szp_centered validation
# against the cpu backend through BE (PRESETS to narrow it).
source .device/cuda-setup.sh
BE=${BE:-cuda}
export FZWGPU_BIN=/tmp/ct/fzwgpu-cuda
for t in cuda_interop kernels fusion stages adversarial adversarial_szp real_data chunks wavelet format concurrency resources stream pipeline transfers faults; do
  s=$(date +%s)
  echo "== test $t ($BE)"; FZWGPU_TEST_BACKEND=$BE timeout 150 /tmp/ct/$t --test-threads 2 > /tmp/t-$t.log 2>&1; echo "rc=$? $(( $(date +%s)-s ))s"
  grep -E "^test |test result|panicked|differs|violat" /tmp/t-$t.log | grep -v " ok$" | head -12
  (echo "=== $t"; cat /tmp/t-$t.log) >> $OUT/tests-$BE.log
done
E=""; [ $BE = cuda ] && E="--backend cuda"
B=/tmp/ct/fzwgpu-cuda EXTRA="$E" NO_DEMO=1 timeout 250 bash .device/h200-validation.sh > $OUT/validation-$BE.log 2>&1
echo "validation $BE: $(grep -cE '^sz' $OUT/validation-$BE.log) evals, FAIL: $(grep -c FAIL $OUT/validation-$BE.log)"

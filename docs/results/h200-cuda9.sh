#!/bin/bash
# The conformance suite on CUDA with the final build of this session (szx_encode /
# szx_compact changes, cpu twin constant-first); same loop as h200-cuda6a.sh.
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
export FZWGPU_BIN=$B
$B adapters 2>&1 | tail -3
for t in cuda_interop kernels fusion stages adversarial adversarial_szp real_data chunks wavelet format concurrency resources stream pipeline transfers faults; do
  s=$(date +%s)
  echo "== test $t (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 150 /tmp/ct/$t --test-threads 2 > /tmp/t-$t.log 2>&1; echo "rc=$? $(( $(date +%s)-s ))s"
  grep -E "^test |test result|panicked|differs|violat" /tmp/t-$t.log | grep -v " ok$" | head -12
  (echo "=== $t"; cat /tmp/t-$t.log) >> $OUT/tests.log
done

#!/bin/bash
# The same suite on the wgpu backend (NVIDIA Vulkan), final build of this session.
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
export FZWGPU_BIN=$B
$B adapters 2>&1 | tail -3
for t in cuda_interop kernels fusion stages adversarial adversarial_szp real_data chunks wavelet format concurrency resources stream pipeline transfers faults; do
  s=$(date +%s)
  echo "== test $t (wgpu)"; timeout 150 /tmp/ct/$t --test-threads 2 > /tmp/t-$t.log 2>&1; echo "rc=$? $(( $(date +%s)-s ))s"
  grep -E "^test |test result|panicked|differs|violat" /tmp/t-$t.log | grep -v " ok$" | head -12
  (echo "=== $t"; cat /tmp/t-$t.log) >> $OUT/tests-wgpu.log
done

#!/bin/bash
# The kit's whole test suite on the device through both backends (cli drives the kit's
# CLI through FZWGPU_BIN, wgpu only; golden reads the checkout and runs in CI), then the
# scan-dependent tests again with FZWGPU_SCAN=lookback. About 260 s on the H200.
source .device/setup.sh
t() { # backend binary [env]
  left ${SUITE_LEFT:-540} || { echo "skip $2 $1"; return 0; }
  local s=$(date +%s) r
  watched 120 /tmp/suite-t.log env FZWGPU_TEST_BACKEND=$1 $3 /tmp/ct/$2 --test-threads 8
  r=$(cat /tmp/suite-t.log)
  echo "$1 $2 $3: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//' | tr '\n' ' ') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
  # the whole output of a binary that failed or printed no result, for the record
  if echo "$r" | grep -qE "FAILED|panicked" || ! echo "$r" | grep -q "^test result"; then
    cp /tmp/suite-t.log "$OUT/suite-$1-$2${3:+-${3//[^a-zA-Z0-9]/_}}.log"
  fi
}
for be in cuda wgpu; do
  for b in lib kernels fusion stages chunks adversarial adversarial_szp real_data pipeline stream transfers concurrency resources faults wavelet; do t $be $b; done
done
t wgpu cli; t cuda cuda_interop; t wgpu format; t wgpu layouts
for be in cuda wgpu; do for b in kernels fusion chunks stages real_data adversarial; do t $be $b FZWGPU_SCAN=lookback; done; done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

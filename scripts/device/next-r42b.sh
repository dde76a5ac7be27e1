#!/bin/bash
# Round 42, call b (kit: main with FZWGPU_STREAM_COPY). On an H200 first (none since
# round 26): main's szx kernel rows and the chain presets' 2-D rows. Then on any card:
# the staged transfers' host copies with non-temporal stores (FZWGPU_STREAM_COPY=on)
# against main's, alternated, end to end on the 1 GiB field through both backends
# (CUDA with transfer traces), then the transfer tests with it on.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "host: $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512f|vpclmulqdq|pclmulqdq|avx2|erms|fsrm)$' | tr '\n' ' ')"
h200_rows r42b-table
for k in 1 2 3; do
  left 400 || break
  E2E_LOG=$OUT/r42b-trace-def$k.log e2e_shape r42b def cuda fzwgpu FZWGPU_TRANSFER_TRACE=1 FZWGPU_STREAM_COPY=off
  E2E_LOG=$OUT/r42b-trace-nt$k.log e2e_shape r42b nt cuda fzwgpu FZWGPU_TRANSFER_TRACE=1 FZWGPU_STREAM_COPY=on
  left 430 || break
  e2e_shape r42b def wgpu fzwgpu FZWGPU_STREAM_COPY=off
  e2e_shape r42b nt wgpu fzwgpu FZWGPU_STREAM_COPY=on
done
for k in def1 nt1; do [ -f $OUT/r42b-trace-$k.log ] && python3 .device/trace-summary.py $OUT/r42b-trace-$k.log | grep -E "==|upload|1073741824 B"; done
shape_summary r42b
FZWGPU_STREAM_COPY=on tests_on "transfers format" 560 60 | sed 's/^/stream-on /'
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 42, call c (kit: main, FZWGPU_STREAM_COPY=auto its default). On an H200 first (none since
# round 26): main's szx kernel rows and the chain presets' 2-D rows. Then on any card:
# the staged transfers' host copies by main's policy (FZWGPU_STREAM_COPY=auto: streaming
# readbacks and uploads up to 256 MiB) against none (off), alternated, end to end on the 1 GiB
# field through both backends (CUDA with transfer traces), then main's transfer tests.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "host: $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2); $(grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx512f|vpclmulqdq|pclmulqdq|avx2|erms|fsrm)$' | tr '\n' ' ')"
h200_rows r42c-table
for k in 1 2; do
  left 170 || break
  E2E_LOG=$OUT/r42c-trace-off$k.log e2e_shape r42c off cuda fzwgpu FZWGPU_TRANSFER_TRACE=1 FZWGPU_STREAM_COPY=off
  E2E_LOG=$OUT/r42c-trace-auto$k.log e2e_shape r42c auto cuda fzwgpu FZWGPU_TRANSFER_TRACE=1 FZWGPU_STREAM_COPY=auto
  left 215 || break
  e2e_shape r42c off wgpu fzwgpu FZWGPU_STREAM_COPY=off
  e2e_shape r42c auto wgpu fzwgpu FZWGPU_STREAM_COPY=auto
done
for k in off1 auto1; do [ -f $OUT/r42c-trace-$k.log ] && python3 .device/trace-summary.py $OUT/r42c-trace-$k.log | grep -E "==|upload|1073741824 B"; done
shape_summary r42c
tests_on "transfers format" 290 60
echo "total $(( $(date +%s) - T0 )) s"

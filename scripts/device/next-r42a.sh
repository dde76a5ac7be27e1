#!/bin/bash
# Round 42, call a (kit: main with FZWGPU_TRANSFER_TRACE; memcpy-align from .device/ if
# the kit lacks it). On an H200 first (none since round 26): main's szx kernel rows and
# the chain presets' 2-D rows, as next-r41e.sh. Then on any card, why CUDA's archive
# upload inside decompression (134 MB) ran at half the plain upload's rate in round 41
# (5.7-6.2 ms against 3.0 at 45 GB/s):
# 1. memcpy by source alignment on this host (16 threads, 1 MiB pieces, 32 MiB fills)
# 2. the plain copies and end to end of a 128 MiB field through CUDA
# 3. end to end on 1 GiB through CUDA with FZWGPU_TRANSFER_TRACE=1: every staged
#    transfer's fills (waits, host copies, final wait), summarized by trace-summary.py;
#    main's uploads alternated with FZWGPU_UPLOAD_COALIGN=on (each piece staged at its
#    source's offset modulo 64)
# 4. CUDA's transfers and format tests with FZWGPU_UPLOAD_COALIGN=on
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "host: $(nproc) cpus, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), numa nodes $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l), thp $(cat /sys/kernel/mm/transparent_hugepage/enabled), $(ldd --version | head -1)"
h200_rows r42a-table
MC=/tmp/ct/memcpy-align; [ -x $MC ] || MC=.device/memcpy-align
$MC 128 16 | tail -5; $MC 1024 16 | tail -5
timeout 40 /tmp/ct/fzwgpu bench --backend cuda --size 128M --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r42a-128m-cuda.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/128M cuda: /"
for k in 1 2; do
  left 330 || break
  E2E_LOG=$OUT/r42a-trace-def$k.log e2e_shape r42a def cuda fzwgpu FZWGPU_TRANSFER_TRACE=1
  python3 .device/trace-summary.py $OUT/r42a-trace-def$k.log
  E2E_LOG=$OUT/r42a-trace-coal$k.log e2e_shape r42a coal cuda fzwgpu FZWGPU_TRANSFER_TRACE=1 FZWGPU_UPLOAD_COALIGN=on
  python3 .device/trace-summary.py $OUT/r42a-trace-coal$k.log
done
for b in transfers format; do
  left 420 || break
  r=$(FZWGPU_UPLOAD_COALIGN=on FZWGPU_TEST_BACKEND=cuda timeout 60 /tmp/ct/$b --test-threads 8 2>&1)
  echo "coalign cuda $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
shape_summary r42a
echo "total $(( $(date +%s) - T0 )) s"

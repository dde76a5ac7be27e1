#!/bin/bash
# Round 38, call d (after c: the CUDA trace showed the overlapped compression waiting
# 37 ms for the host's range scan before its first kernel, its uploads slowed to
# 12-14 ms per 64 MiB beside the scan). Kit: as r38c.
# 1. end to end szx, 1 GiB 2-D field, with an absolute bound (--mode abs --eb 1e-3: no
#    range, so no scan): overlap on / off alternated twice per backend
# 2. one traced overlapped bench through CUDA with that bound ($OUT/r38d-trace-abs-cuda.txt)
# 3. the host-memory probe on the device's host (copies, and the min/max scan with 1
#    thread and all threads)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for be in cuda wgpu; do for r in 1 2; do for v in on off; do left 170 || break
  FZWGPU_OVERLAP=$v timeout 40 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --mode abs --eb 1e-3 --reps 3 --replays 1 --presets szx --json $OUT/r38d-e2e-abs-$v-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e abs $v $be: /"
done; done; done
left 200 && FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=on timeout 40 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --mode abs --eb 1e-3 --reps 1 --replays 1 --presets szx > $OUT/r38d-trace-abs-cuda.txt 2>&1
grep -E "^sz" $OUT/r38d-trace-abs-cuda.txt | cut -c1-200 | sed "s/^/trace abs cuda: /"
left 225 && timeout 60 /tmp/ct/hostmem-probe 1024 2>&1 | sed "s/^/hostmem: /"
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Prepared in round 37 for the next round (not yet run). Kit: main (no KIT_B needed).
# The overlap with main's final host scan (21-24 GB/s per thread on the CI machine;
# r37d's kit had the 7 GB/s form) and FZWGPU_OVERLAP=upload, which round 37 did not
# measure after wgpu's reads left the queue lock: end to end szx on the 1 GiB 2-D field,
# on / upload / off alternated twice per backend, then one traced bench through wgpu.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for be in wgpu cuda; do for r in 1 2; do for v in on upload off; do left 480 || break
  FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r38a-e2e-$v-$be.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v $be: /"
done; done; done
left 540 && FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=upload timeout 45 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r38a-trace-upload-wgpu.txt 2>&1
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 39, next-r39d.sh cut to about three minutes (device time nearly spent):
# 1. the zero-copy probe's import timings (1 GiB)
# 2. end to end szx, 1 GiB 2-D field, direct transfers (FZWGPU_HOST_IMPORT=on) against
#    staging, off / on once per backend (Vulkan, then CUDA)
# 3. the transfers tests through both backends with direct transfers on
# 4. a second off / on alternation per backend in what is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 40 /tmp/ct/zerocopy-probe 1024 --iters 3 2>&1 | tee $OUT/r39e-zerocopy-1024.txt | grep -iE "adapter|import" | sed "s/^/zc 1024: /"
e2e() { left $3 || return; FZWGPU_HOST_IMPORT=$2 timeout 40 /tmp/ct/fzwgpu bench --backend $1 --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r39e-e2e-import-$2-$1.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e import $2 $1: /"; }
for be in wgpu cuda; do for v in off on; do e2e $be $v 120; done; done
grep -ho '"upload_staging": *"[^"]*"' $OUT/r39e-e2e-import-on-*.jsonl | sort | uniq -c | cut -c1-200
for be in wgpu cuda; do left 150 || break
  r=$(FZWGPU_HOST_IMPORT=on FZWGPU_TEST_BACKEND=$be timeout 40 /tmp/ct/transfers --test-threads 8 2>&1)
  echo "$be+import transfers: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
for be in wgpu cuda; do for v in off on; do e2e $be $v 165; done; done
echo "total $(( $(date +%s) - T0 )) s"

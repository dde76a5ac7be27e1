#!/bin/bash
# Round 38, call b. Kit: as r38a. The overlap through wgpu with main's final host scan
# (21-26 GB/s per thread on the CI machine; r37d's kit had the 7 GB/s form) and
# FZWGPU_OVERLAP=upload, not measured since wgpu's reads left the queue lock: end to
# end szx on the 1 GiB 2-D field, on / upload / off alternated twice, then one traced
# bench with the upload-only overlap ($OUT/r38b-trace-upload-wgpu.txt). First the
# zero-copy probe (scripts/device/probes/zerocopy): kernels reading and writing host
# memory against DMA copies, 1 GiB and 256 MiB.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ZC=/tmp/ct/zerocopy-probe; [ -x $ZC ] || ZC=.device/zerocopy-probe
for m in 1024 256; do timeout 60 $ZC $m --iters 5 2>&1 | tee $OUT/r38b-zerocopy-$m.txt | sed "s/^/zc $m: /"; done
for r in 1 2; do for v in on upload off; do left 480 || break
  FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r38b-e2e-$v-wgpu.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v wgpu: /"
done; done
left 540 && FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=upload timeout 45 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r38b-trace-upload-wgpu.txt 2>&1
grep -E "^sz" $OUT/r38b-trace-upload-wgpu.txt | cut -c1-200 | sed "s/^/trace wgpu: /"
echo "total $(( $(date +%s) - T0 )) s"

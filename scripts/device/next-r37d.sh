#!/bin/bash
# Round 37, call d (after c: the traces showed each chunk's submission waiting for the
# reader's readback: wgpu's reads held the queue lock). Kit: main with read_lock (reads
# no longer take the queue lock); KIT_B the one-code-path patch (next-r37a.sh).
# 1. one traced bench through wgpu (timeline in $OUT/r37d-trace-wgpu.txt)
# 2. end to end szx, 1 GiB 2-D field: wgpu on / off alternated twice, cuda on / off once
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=on timeout 60 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r37d-trace-wgpu.txt 2>&1
grep -E "^sz" $OUT/r37d-trace-wgpu.txt | cut -c1-200 | sed "s/^/trace wgpu: /"
for r in 1 2; do for v in on off; do left 250 || break
  FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37d-e2e-$v-wgpu.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v wgpu: /"
done; done
for v in on off; do left 300 || break
  FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37d-e2e-$v-cuda.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v cuda: /"
done
echo "total $(( $(date +%s) - T0 )) s"

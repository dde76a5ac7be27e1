#!/bin/bash
# Round 37, call c (after b: overlapped runs measured 2-3x slower than plain on an
# H100). Kit: main with the per-chunk trace (FZWGPU_OVERLAP_TRACE), the AVX2 host
# range scan and FZWGPU_MAP_WAIT=spin (wgpu readbacks wait by non-blocking polls; a
# diagnostic of that kit only, removed from main after it measured no change).
# 1. one traced bench per backend (and wgpu with spin): the timeline of each chunk's
#    upload, submission and readback, in $OUT/r37c-trace-*.txt
# 2. end to end szx, 1 GiB 2-D field: wgpu on / on+spin / off, cuda on / off, twice
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
trace() { # LABEL BACKEND ENV...
  local l=$1 be=$2; shift 2
  env FZWGPU_OVERLAP_TRACE=1 "$@" timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r37c-trace-$l.txt 2>&1
  grep -E "^sz" $OUT/r37c-trace-$l.txt | cut -c1-200 | sed "s/^/trace $l: /"
}
trace wgpu wgpu FZWGPU_OVERLAP=on
trace wgpu-spin wgpu FZWGPU_MAP_WAIT=spin
trace cuda cuda FZWGPU_OVERLAP=on
for r in 1 2; do
  for v in on spin off; do left 470 || break
    case $v in spin) e="FZWGPU_MAP_WAIT=spin";; *) e="FZWGPU_OVERLAP=$v";; esac
    env $e timeout 45 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37c-e2e-$v-wgpu.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v wgpu: /"
  done
  for v in on off; do left 530 || break
    FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37c-e2e-$v-cuda.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v cuda: /"
  done
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 14, call 2 (prepared 2026-12-04, not yet run; same kit as call 1): end to end
# after decoding started to check the payload CRC beside the uploads (host.parse was
# 1.7 ms of szx's 1 GiB 2-D decompression in r13a; new phase host.verify), then the
# whole suite (suite.sh, with `watched` for the faults binary's rare hang).
source .device/setup.sh
for be in cuda wgpu; do left 130 || break
  timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r14b-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
echo "e2e total $(( $(date +%s) - T0 )) s"
SUITE_LEFT=${SUITE_LEFT:-420} bash .device/suite.sh

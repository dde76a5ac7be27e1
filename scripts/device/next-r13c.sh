#!/bin/bash
# Round 13, call 3 (prepared 2026-12-04): main after the decode host-scan changes
# (AdaptiveBitpack's width scan in one vectorized pass on several threads; SZp's meta
# scan with a cost table, only its meta region copied to the host).
#  1. end to end (--replays 1, 1 GiB smooth field) of szp_composed, szp_centered and
#     szp through CUDA and Vulkan: decompression's host.copy / host.record phases
#     (szp_centered's host.record was 8.4-9.4 ms per GiB in r13a, 37-46 in r12d);
#  2. the whole test suite (suite.sh) on this commit.
source .device/setup.sh
for be in cuda wgpu; do left 150 || break
  timeout 70 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szp_composed,szp_centered,szp --json $OUT/r13c-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
echo "e2e total $(( $(date +%s) - T0 )) s"
SUITE_LEFT=${SUITE_LEFT:-400} bash .device/suite.sh

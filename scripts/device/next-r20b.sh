#!/bin/bash
# Round 20, call 2 (prepared in round 19, not yet run; the kit of next-r20a.sh).
#  1. validation.sh of szp_composed and szp_centered through fzwgpu-c (compact-vec4)
#     on both backends: eval --compare-cpu on every real field, 3 bounds, f32 and f64
#     (chain_compact runs in every compression of both presets; the kit's test binaries
#     are main's, so this is the patch's check on the H200)
#  2. the A/B of next-r20a.sh again (a second round), and szx 2-D for fzwgpu-b (its
#     szx_compact change)
source .device/setup.sh
for be in cuda wgpu; do
  left 250 || break
  B=/tmp/ct/fzwgpu-c EXTRA="--backend $be" PRESETS="szp_composed szp_centered" timeout 120 bash .device/validation.sh > $OUT/r20b-val-c-$be.log 2>&1
  echo "validation fzwgpu-c $be: $(grep -cE '^sz' $OUT/r20b-val-c-$be.log) passed, $(grep -c '^FAIL' $OUT/r20b-val-c-$be.log) failed, $(grep -c ALL_DONE $OUT/r20b-val-c-$be.log) done"
  grep '^FAIL' $OUT/r20b-val-c-$be.log | cut -c1-200 | head -3
done
for be in wgpu cuda; do
  for bin in fzwgpu fzwgpu-b fzwgpu-c; do
    left 510 || break
    timeout 40 /tmp/ct/$bin bench --backend $be --dims 268435456 --reps 3 --presets szp_composed --json $OUT/r20b-ab-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $be 1d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
    timeout 40 /tmp/ct/$bin bench --backend $be --size 1G --fields smooth --reps 3 --presets szp_composed,szx --json $OUT/r20b-ab-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$bin $be 2d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
  done
done
echo "total $(( $(date +%s) - T0 )) s"

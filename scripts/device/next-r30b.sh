#!/bin/bash
# Prepared in round 29, run in round 30 on an H100 (docs/results/h100-r30b*). Kit: main, with profile-summary.py copied in.
# 1. Why Vulkan's chain_decode_1d loses to the walking chain_decode on 1-D fields
#    (H200 round 23: szp_centered 595 against 948 GB/s; PERFORMANCE.md Next steps 4):
#    FZWGPU_DECODE_1D=on against off (new in round 29; before, the 1-D decoder came
#    only with all the COALESCE variants), 1-D 1 GiB, both chain presets, both
#    backends, then per-dispatch profiles of the two decoders through Vulkan
# 2. szx_encode8's per-dispatch time without its walk (r28a, walking: 0.92 CUDA / 1.17
#    Vulkan ms per GiB on the H100), 2-D szx through both backends
source .device/setup.sh
for be in wgpu cuda; do for d in off on; do
  left 200 || break
  FZWGPU_DECODE_1D=$d timeout 60 /tmp/ct/fzwgpu bench --backend $be --dims 268435456 --reps 3 --presets szp_composed,szp_centered --json $OUT/r30b-d1-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="decode_1d=$d $be 1d" '{print t, $1, "compress", $3, "decompress", $8}'
done; done
prof() { # LABEL "VAR=VALUE or nothing" BENCH-ARGS...
  local l=$1 e=$2; shift 2
  env $e FZWGPU_PROFILE=1 timeout 50 /tmp/ct/fzwgpu bench "$@" --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
  echo "== profile $l"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A14 "submissions of [0-9]* dispatches (5" | head -24
}
for d in off on; do left 400 || break; prof "wgpu 1-D szp_centered decode_1d=$d" FZWGPU_DECODE_1D=$d --backend wgpu --dims 268435456 --presets szp_centered; done
for be in wgpu cuda; do left 500 || break; prof "$be 2-D szx" "" --backend $be --size 1G --fields smooth --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

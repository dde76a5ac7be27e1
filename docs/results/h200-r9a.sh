#!/bin/bash
# 2026-12-03 (round 9, call 1): exp/compact-search (cs: branch-free block search over
# padded offsets, per-block word sources in szx_compact) against main (r9) and the
# look-back offset scan against reduce-then-scan, through both backends. First cs's
# kernel and fused-chain twins through both backends; then rounds of 1 GiB 2-D and
# 1-D fields (szx, szp_composed, szp_centered; median of 3 reps, 20 replays each),
# alternating r9 / cs / r9 --scan lookback. Stops starting runs after ~520 s.
source .device/cuda-setup.sh
T0=$(date +%s); left() { [ $(( $(date +%s) - T0 )) -lt ${1:-520} ]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
for t in kernels-cs fusion-cs; do for be in cuda wgpu; do echo "== $t $be"; FZWGPU_TEST_BACKEND=$be timeout 60 /tmp/ct/$t --test-threads 4 2>&1 | grep -E "test result|FAILED|panicked"; done; done
echo "setup+twins $(( $(date +%s) - T0 )) s"
run() { # backend version label field presets [extra]
  left || return 0
  timeout 60 /tmp/ct/fzwgpu-cuda-$2 bench --backend $1 $4 --reps 3 --presets $5 $6 --json $OUT/r9a-$1-$3.jsonl 2>&1 | grep -E "^sz" | sed "s/^/$1 $3 $4 /"; }
for round in 1 2; do for f in "--size 1G" "--dims 268435456"; do for be in cuda wgpu; do
  run $be r9 r9 "$f" szx,szp_composed,szp_centered
  run $be cs cs "$f" szx,szp_composed,szp_centered
  run $be r9 lb "$f" szx,szp_composed,szp_centered "--scan lookback"
  echo "t=$(( $(date +%s) - T0 )) s"
done; done; done
save_cache

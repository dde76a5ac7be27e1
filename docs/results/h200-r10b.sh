#!/bin/bash
# Round 10, call 2 (prepared 2026-12-03, not yet run): what the runtime checks cost
# through each backend at the current kernels, one preset per process (round 9 showed
# that a chain preset after another can run slower through Vulkan), and whether the
# loop counters still change results.
#  1. Vulkan: FZWGPU_SHADER_CHECKS=full / noloop / nobounds, CUDA: FZWGPU_CUDA_CHECKS=
#     on / clamp / off; szx, szp_composed, szp_centered on the 1 GiB 2-D field;
#  2. CUDA with separate and batched kernel-timing replays (--replay-mode);
#  3. noloop's kernel and fused-chain twins through Vulkan, and its szx validation
#     (eval --compare-cpu on every real field, f32 and f64) with main's CLI and with
#     fzwgpu-b = exp/uniform-loops (build the kit with
#     KIT_B=scripts/device/patches/uniform-loops.patch): its
#     raw copy in szx_encode and chain_width's loop have team-uniform trip counts, the
#     candidate fix for noloop's changed float64 results (ARCHITECTURE.md, "Shader
#     runtime checks"). If b validates under noloop and main does not, noloop's speed
#     (12-21% in round 1) is the next A/B.
source .device/setup.sh
B=/tmp/ct/fzwgpu
one() { # backend env preset
  left 300 || return 0
  env $2 timeout 40 $B bench --backend $1 --size 1G --reps 3 --presets $3 --json $OUT/r10b-$1.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2" '{print t, $1, "compress", $3, "decompress", $6}'; }
for p in szx szp_composed szp_centered; do
  for e in FZWGPU_SHADER_CHECKS=full FZWGPU_SHADER_CHECKS=noloop FZWGPU_SHADER_CHECKS=nobounds; do one wgpu $e $p; done
  for e in FZWGPU_CUDA_CHECKS=on FZWGPU_CUDA_CHECKS=clamp FZWGPU_CUDA_CHECKS=off; do one cuda $e $p; done
done
# CUDA has no preset-order effect: all three presets per process, separate vs batched
# replays (batched = CUDA-style timing, events around back-to-back launches)
for m in separate batched separate batched; do left 340 || break
  timeout 60 $B bench --backend cuda --size 1G --reps 3 --presets szx,szp_composed,szp_centered --replay-mode $m --json $OUT/r10b-cuda-replays.jsonl 2>&1 | grep -E "^sz" | awk -v m=$m '{print "cuda", m, $1, "compress", $3, "decompress", $6}'
done
for t in kernels fusion; do echo "== noloop $t"; FZWGPU_SHADER_CHECKS=noloop FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/$t --test-threads 8 2>&1 | grep -E "test result|FAILED|panicked" | head -8; done
for v in fzwgpu fzwgpu-b; do [ -x /tmp/ct/$v ] || continue; left 560 || break
  B=/tmp/ct/$v FZWGPU_SHADER_CHECKS=noloop PRESETS=szx timeout 100 bash .device/validation.sh > $OUT/r10b-val-noloop-$v.log 2>&1
  echo "noloop validation $v: $(grep -cE '^sz' $OUT/r10b-val-noloop-$v.log) evals, FAIL $(grep -c FAIL $OUT/r10b-val-noloop-$v.log)"
  grep FAIL $OUT/r10b-val-noloop-$v.log | cut -c1-160 | head -3
done
echo "total $(( $(date +%s) - T0 )) s"

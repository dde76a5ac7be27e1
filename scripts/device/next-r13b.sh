#!/bin/bash
# Round 13, call 2 (prepared 2026-12-04, not yet run): chain_encode with one copy of the
# per-value quantization (fzwgpu-b = scripts/device/patches/chain-compact.patch; build
# the kit with KIT_B=scripts/device/patches/chain-compact.patch) against main. float32
# rows take the vector fast path four values at a time; when any four miss it, the
# row's 32 values go through quantize_bits in one loop (the same codes). sm_90: 3456
# instructions against 6976, but 155 registers and 128 B of stack against 126 / 0
# (with FZWGPU_CUDA_MINBLOCKS=8: 128 registers, 144 B stack). Through lavapipe the
# chain presets compressed 1.38-1.53x faster (2-D, tiled, 1-D).
#  1. szp_composed and szp_centered, 2-D (1 GiB) twice, 1-D and CESM TS tiled once,
#     main / chain-compact alternating, through CUDA and Vulkan;
#  2. fzwgpu-b through CUDA with FZWGPU_CUDA_MINBLOCKS=8 (2-D, 1-D);
#  3. fzwgpu-b's validation of both chain presets through both backends.
# If it wins and validates: merge the patch, rebuild the kit and run suite.sh.
source .device/setup.sh
ab() { # label binary backend field-args field-label [env]
  left 330 || return 0
  env $6 timeout 60 $2 bench --backend $3 $4 --reps 3 --presets szp_composed,szp_centered --json $OUT/r13b-$1-$3.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $3 $5 $6" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 1G --fields smooth|2-D" "--size 1G --fields smooth|2-D" "--dims 268435456|1-D" "--size 256M --fields tiled|tiled"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab compact /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
for f in "--size 1G --fields smooth|2-D" "--dims 268435456|1-D"; do left 390 || break
  ab compact /tmp/ct/fzwgpu-b cuda "${f%|*}" "${f#*|}" FZWGPU_CUDA_MINBLOCKS=8
done
for be in cuda wgpu; do left 470 || break
  B=/tmp/ct/fzwgpu-b EXTRA="--backend $be" PRESETS="szp_composed szp_centered" timeout 110 bash .device/validation.sh > $OUT/r13b-val-$be.log 2>&1
  echo "validation chain-compact $be: $(grep -cE '^sz' $OUT/r13b-val-$be.log) passed, $(grep -c '^FAIL' $OUT/r13b-val-$be.log) failed, $(grep -c ALL_DONE $OUT/r13b-val-$be.log) done"
  grep '^FAIL' $OUT/r13b-val-$be.log | cut -c1-160 | head -3
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

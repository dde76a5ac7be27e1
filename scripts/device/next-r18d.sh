#!/bin/bash
# Round 18, call 4. Kit: KIT_B=scripts/device/patches/flat-scalar-loads.patch
#   KIT_C=scripts/device/patches/szx-single-codes.patch bash scripts/device/kit.sh
#   new   main: chain_encode_flat loads four values that are not 16-byte aligned as two
#         aligned vec4 loads and a shift; bench pre-heats (--preheat-ms 500 on GPUs)
#   old   fzwgpu-b: main with the four scalar loads of round 17 (the patch reverts
#         653f4b3 only; it pre-heats too)
#   single fzwgpu-c: main with szx_encode8 packing every code on its own (the patch
#         reverts the 4w-bit pieces of w <= 8 only)
#  0. szx on the 1 GiB smooth 2-D field, new against single, CUDA and Vulkan, twice;
#  1. both chain presets, new against old: 2-D 8190x32768 (rows above 8 bytes off
#     16-byte alignment) and 48602x5522 through CUDA and Vulkan, 3-D 1001x1000x268
#     (rows above 4 bytes off) through CUDA;
#  2. the pre-heat against r17a's slow mode: szp_composed six times in one process
#     through Vulkan, with the buffer pool (r17a: 2 of 6 slow, 380-537) and without
#     (FZWGPU_POOL=off; r17a: 5 of 6 slow, 239-271), both with the default pre-heat;
#  3. the kernels and fusion tests of the kit (new) through both backends.
source .device/setup.sh
ab() { chains r18d 360 70 "$@"; } # label backend field-args field-label binary
for r in 1 2; do
  for be in cuda wgpu; do
    for v in new:fzwgpu single:fzwgpu-c; do
      left 150 || break
      timeout 60 /tmp/ct/${v#*:} bench --backend $be --size 1G --fields smooth --reps 3 --presets szx --json $OUT/r18d-szx-${v%%:*}-$be.jsonl 2>&1 | grep -E "^szx" | awk -v t="${v%%:*} $be" '{print "szx", t, "compress", $3, "decompress", $8}'
    done
  done
done
for f in "--dims 8190x32768|2d-8190" "--dims 48602x5522|2d-48602"; do
  for be in cuda wgpu; do
    ab new $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab old $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
done
ab new cuda "--dims 1001x1000x268" 3d-1001 /tmp/ct/fzwgpu
ab old cuda "--dims 1001x1000x268" 3d-1001 /tmp/ct/fzwgpu-b
six=szp_composed,szp_composed,szp_composed,szp_composed,szp_composed,szp_composed
for v in pool:NOTHING=1 nopool:FZWGPU_POOL=off; do
  left 430 || break
  env ${v#*:} timeout 100 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --presets $six --json $OUT/r18d-six-${v%%:*}.jsonl 2>&1 | grep -E "^sz|replays" | awk -v t="${v%%:*}" '{print "six", t, $0}' | cut -c1-150
done
tests_on "kernels fusion" 520 70
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 12, call 2 (run 2026-12-04, 378 s; log docs/results/h200-r12b.log; the lean
# patch lost, main stayed): szx_encode8 is the default since r12a (kit of
# main, launch bound 4 = 64 registers through CUDA, 56 B stack) against fzwgpu-b =
# scripts/device/patches/encode8-lean.patch (the packer computes the codes again
# instead of keeping 16 per lane from the checks: 60 registers, no stack, capped; 74
# uncapped). Build the kit with KIT_B=scripts/device/patches/encode8-lean.patch.
#  1. the kernel twins of main through both backends (CUDA now with the launch bound);
#  2. szx 2-D (1 GiB) twice, 1-D and CESM TS tiled once, main / lean alternating,
#     through CUDA and Vulkan (kernel GB/s of compression and decompression);
#  3. the launch bound: FZWGPU_CUDA_MINBLOCKS=3 (about uncapped) for both builds on
#     the 2-D and 1-D fields;
#  4. fzwgpu-b's validation of szx through both backends.
# If lean wins and validates: merge the patch, rebuild the kit and run suite.sh.
source .device/setup.sh
for be in cuda wgpu; do
  FZWGPU_TEST_BACKEND=$be timeout 120 /tmp/ct/kernels --test-threads 8 szx 2>&1 | grep -E "^test result|panicked|differs" | head -3 | sed "s/^/twins $be: /"
done
ab() { # label binary backend field-args field-label [env]
  left 300 || return 0
  env $6 timeout 60 $2 bench --backend $3 $4 --reps 3 --presets szx --json $OUT/r12b-$1-$3.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $3 $5 $6" '{print t, "compress", $3, "decompress", $8, "ratio", $2}'
}
for be in cuda wgpu; do
  for f in "--size 1G --fields smooth|2-D" "--size 1G --fields smooth|2-D" "--dims 268435456|1-D" "--size 256M --fields tiled|tiled"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab lean /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
for f in "--size 1G --fields smooth|2-D" "--dims 268435456|1-D"; do left 360 || break
  ab main /tmp/ct/fzwgpu cuda "${f%|*}" "${f#*|}" FZWGPU_CUDA_MINBLOCKS=3; ab lean /tmp/ct/fzwgpu-b cuda "${f%|*}" "${f#*|}" FZWGPU_CUDA_MINBLOCKS=3
done
for be in cuda wgpu; do left 450 || break
  B=/tmp/ct/fzwgpu-b EXTRA="--backend $be" PRESETS="szx" timeout 75 bash .device/validation.sh > $OUT/r12b-val-$be.log 2>&1
  echo "validation lean $be: $(grep -cE '^szx' $OUT/r12b-val-$be.log) passed, $(grep -c '^FAIL' $OUT/r12b-val-$be.log) failed, $(grep -c ALL_DONE $OUT/r12b-val-$be.log) done"
  grep '^FAIL' $OUT/r12b-val-$be.log | cut -c1-160 | head -3
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

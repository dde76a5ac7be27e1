#!/bin/bash
# Round 14, call 1 (prepared 2026-12-04, not yet run): the staged inverse kernels
# rewritten after round 13 (lorenzo_scan_x by teams of ~tx/4 invocations and out of
# place, bitpack_unpack one invocation per code) against the tree before them
# (fzwgpu-b: build the kit with KIT_B=5fa8cd0). Round 13 measured 3-D chain
# decompression (staged) at 94 / 70 GB/s on CESM TS tiled to 256 MiB (CUDA,
# szp_composed / szp_centered); through lavapipe the rewrite decompressed that field
# 3.9-4.3x faster.
#  1. szp_composed and szp_centered: CESM TS tiled (3-D, 256 MiB), a 1024x1024x256
#     cube (1 GiB) and the 2-D 1 GiB field with --fusion off (staged 2-D inverse),
#     main / before alternating, through CUDA and Vulkan;
#  2. main's validation of both chain presets through both backends (the real fields
#     are 3-D: their inverses are staged);
#  3. per-dispatch GPU times of main's tiled decompression (Vulkan).
# Then suite.sh (call 2) on this kit.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 300 || return 0
  timeout 75 $2 bench --backend $3 $4 --reps 3 --presets szp_composed,szp_centered --json $OUT/r14a-$1-$3.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $3 $5" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube" "--size 1G --fields smooth --fusion off|2-D-staged"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab before /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
val r14a /tmp/ct/fzwgpu "szp_composed szp_centered"
left 540 && FZWGPU_PROFILE=1 timeout 40 /tmp/ct/fzwgpu bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered 2>&1 | grep -A9 "13 dispatches" | tail -9
echo "total $(( $(date +%s) - T0 )) s"
save_cache

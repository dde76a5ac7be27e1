#!/bin/bash
# Round 14, call 4 (prepared 2026-12-04): the staged 3-D inverse after r14c's profile
# (CESM TS tiled to 256 MiB, Vulkan: bitpack_unpack 0.39 ms, lorenzo_scan_x 0.41,
# lorenzo_scan_axis x2 0.30, quant_decode 0.24 of 1.37-1.42 ms). main: lorenzo_scan_x
# through workgroup memory (whole-line loads and stores), bitpack_unpack and quant_decode
# four items per invocation (a quarter of the workgroups); fzwgpu-b: the tree before
# (build the kit with KIT_B=cef5d4e).
#  1. szp_composed and szp_centered on the tiled field and a 1024x1024x256 cube, main /
#     before alternating, through CUDA and Vulkan;
#  2. per-dispatch GPU times of both (Vulkan, tiled);
#  3. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 300 || return 0
  timeout 75 $2 bench --backend $3 $4 --reps 3 --presets szp_composed,szp_centered --json $OUT/r14d-$1-$3.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $3 $5" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab before /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
for b in fzwgpu fzwgpu-b; do
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$b bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered > $OUT/r14d-prof-$b.log 2>&1
  echo "profile $b:"; awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' $OUT/r14d-prof-$b.log | grep "profile:" | tail -9
done
VAL_LEFT=420 val r14d /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 15, call 1 (prepared 2026-12-04, not yet run): lorenzo_scan_x's team scan by
# subgroup operations (no barrier for teams inside one subgroup: tiles of 128 take
# teams of 32 = NVIDIA's subgroup) against the tree before it (fzwgpu-b: build the kit
# with KIT_B=49ae33f, which is round 14's kept tree: bitpack_unpack and quant_decode
# four items per invocation, measured per kernel in r14d but never as a whole).
# r14c/d put lorenzo_scan_x at 0.41 of ~1.2-1.4 ms of the tiled 3-D inverse (Vulkan).
#  1. szp_composed and szp_centered: CESM TS tiled (3-D, 256 MiB) and a 1024x1024x256
#     cube, main / before alternating, through CUDA and Vulkan;
#  2. per-dispatch GPU times of both (Vulkan, tiled);
#  3. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label binary backend field-args field-label
  left 300 || return 0
  timeout 75 $2 bench --backend $3 $4 --reps 3 --presets szp_composed,szp_centered --json $OUT/r15a-$1-$3.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $3 $5" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab main /tmp/ct/fzwgpu $be "${f%|*}" "${f#*|}"; ab before /tmp/ct/fzwgpu-b $be "${f%|*}" "${f#*|}"
  done
done
for b in fzwgpu fzwgpu-b; do
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$b bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered > $OUT/r15a-prof-$b.log 2>&1
  echo "profile $b:"; awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' $OUT/r15a-prof-$b.log | grep "profile:" | tail -9
done
VAL_LEFT=420 val r15a /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 14, call 5 (prepared 2026-12-04, the last ~190 s of device time): main after
# r14d (lorenzo_scan_x back to its r14a form; bitpack_unpack and quant_decode four items
# per invocation) against cef5d4e (fzwgpu-b: KIT_B=cef5d4e) on CESM TS tiled to 256 MiB,
# then main's per-dispatch times there (Vulkan).
source .device/setup.sh
for be in cuda wgpu; do for b in fzwgpu fzwgpu-b; do
  timeout 30 /tmp/ct/$b bench --backend $be --size 256M --fields tiled --reps 3 --presets szp_composed,szp_centered --json $OUT/r14e-$b-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$b $be tiled" '{print t, $1, "compress", $3, "decompress", $8}'
done; done
FZWGPU_PROFILE=1 timeout 20 /tmp/ct/fzwgpu bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets szp_centered 2>&1 | awk '/dispatches/{b=""} {b=b"\n"$0} END{print b}' | grep "profile:" | tail -9
echo "total $(( $(date +%s) - T0 )) s"

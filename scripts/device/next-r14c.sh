#!/bin/bash
# Round 14, call 3 (prepared 2026-12-04): compression's archive CRC hashed as the
# readback copies each piece in (read_into_crc; host.archive was 1.6 ms of szx's
# 33.6 ms 2-D compression into a reused buffer in r13a) against the tree before it
# (fzwgpu-b: build the kit with KIT_B=5e21627), end to end, A/B alternating twice; then
# per-dispatch GPU times of the rewritten staged 3-D inverse (Vulkan, CESM TS tiled to
# 256 MiB), which r14a's script skipped for time.
source .device/setup.sh
for round in 1 2; do
  E2E_LEFT=300 e2e r14c-main$round szx,szp_composed
  E2E_LEFT=300 E2E_BIN=/tmp/ct/fzwgpu-b e2e r14c-before$round szx,szp_composed
done
echo "e2e total $(( $(date +%s) - T0 )) s"
for p in szp_centered szp_composed; do
  left 480 && FZWGPU_PROFILE=1 timeout 40 /tmp/ct/fzwgpu bench --backend wgpu --size 256M --fields tiled --reps 1 --warmup 0 --replays 1 --presets $p 2>&1 | grep -A9 "13 dispatches" | tail -10
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# 3-D chain performance: fused against staged kernels on 3-D fields (tiled CESM TS,
# 288x192x2420, and a generated 1024x1024x256 cube), with per-dispatch GPU times.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for fu in auto off; do
  $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szp_composed,szp_centered --eb 1e-3 --mode noa --reps 3 --replays 10 --fusion $fu --json $OUT/3d.jsonl 2>&1
  $B bench --dims 1024x1024x256 --presets szp_composed,szp_centered --eb 1e-3 --mode noa --reps 3 --replays 10 --fusion $fu --json $OUT/3d.jsonl 2>&1
done
echo "== profile (fused, tiled CESM)"
FZWGPU_PROFILE=1 $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szp_composed --eb 1e-3 --mode noa --reps 1 --replays 0 --fusion auto 2>&1 | tail -40
echo ALL_DONE

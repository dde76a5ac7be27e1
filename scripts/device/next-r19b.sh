#!/bin/bash
# Round 19, calls 2 and 3 (prepared in round 18, not yet run; kit: bash scripts/device/kit.sh).
# README's "Current figures" table again, now with bench's pre-heat (round 18: without
# it Vulkan's compression figures could be taken at a low SM clock): szx, szp_composed
# and szp_centered on the 1 GiB 2-D and 1-D fields, CESM TS tiled (3-D, 256 MiB), tiled
# as 1-D and the 1024x1024x256 cube, twice, through one backend per call:
#   bash .device/next-r19b.sh cuda   then   bash .device/next-r19b.sh wgpu
source .device/setup.sh
be=${1:?backend: cuda or wgpu}
for round in 1 2; do
  for f in "--size 1G --fields smooth|2d" "--dims 268435456|1d" "--size 256M --fields tiled|tiled" "-i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M|tiled-1d" "--dims 1024x1024x256|cube"; do
    left 480 || break
    timeout 100 /tmp/ct/fzwgpu bench --backend $be ${f%|*} --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r19b-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$round $be ${f#*|}" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8}'
  done
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 16, call 3: the final tree (kit: bash scripts/device/kit.sh), measured whole.
#  1. szx, szp_composed and szp_centered on the 1 GiB 2-D and 1-D fields, CESM TS tiled
#     (3-D, 256 MiB), tiled as 1-D (native cuSZp's configuration) and the
#     1024x1024x256 cube, through CUDA and Vulkan, twice (each field's two backends
#     alternate, then the round repeats);
#  2. validation of the three presets through both backends.
source .device/setup.sh
run1() { # round backend field-args field-label
  left 420 || return 0
  timeout 80 /tmp/ct/fzwgpu bench --backend $2 $3 --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r16c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8}'
}
for round in 1 2; do
  for f in "--size 1G --fields smooth|2d" "--dims 268435456|1d" "--size 256M --fields tiled|tiled" "-i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M|tiled-1d" "--dims 1024x1024x256|cube"; do
    for be in cuda wgpu; do run1 $round $be "${f%|*}" "${f#*|}"; done
  done
done
VAL_LEFT=440 val r16c /tmp/ct/fzwgpu "szx szp_composed szp_centered" 140
echo "total $(( $(date +%s) - T0 )) s"
save_cache

#!/bin/bash
# Round 21, call 2 (prepared in round 20, not yet run; the kit of next-r21a.sh):
# validation.sh of szx through fzwgpu-b (szx-compact-vec4) and fzwgpu-c
# (range-final-unrolled) on both backends (byte for byte against the cpu backend, f32
# and f64, 12 real fields, 3 bounds); the README rows still marked as round 19's, on
# main: CESM TS tiled as 1-D and the cube through both backends, the 1-D field and CESM
# TS tiled (3-D) through Vulkan; then the kernel, fusion and adversarial SZp tests
# through both backends
source .device/setup.sh
VAL_LEFT=150 val r21b-b /tmp/ct/fzwgpu-b szx 90
VAL_LEFT=270 val r21b-c /tmp/ct/fzwgpu-c szx 90
row() { # backend label bench-args...
  be=$1; l=$2; shift 2
  timeout 100 /tmp/ct/fzwgpu bench --backend $be "$@" --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r21b-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="$be $l" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8}'
}
for be in wgpu cuda; do
  left 420 && row $be tiled-1d -i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M
  left 450 && row $be cube --dims 1024x1024x256
done
left 480 && row wgpu 1d --dims 268435456
left 510 && row wgpu tiled --size 256M --fields tiled
tests_through wgpu 560
tests_through cuda 570
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 41, call e (kit f4e3402): only on an H200 (none came since round 26; on any
# other card it stops at once): main's szx kernel rows (2-D, 1-D, tiled) through both
# backends, then the chain presets' 2-D rows while the time lasts (LEFT, default 200 s).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: stopped"; exit 0; }
for be in cuda wgpu; do for f in "--size 1G --fields smooth:2d" "--dims 268435456:1d" "--size 256M --fields tiled:tiled"; do
  bench_line r41e-table ${LEFT:-200} fzwgpu $be "${f%%:*}" "${f##*:}" szx
done; done
for be in cuda wgpu; do for p in szp_composed szp_centered; do
  bench_line r41e-table ${LEFT:-200} fzwgpu $be "--size 1G --fields smooth" 2d $p
done; done
echo "total $(( $(date +%s) - T0 )) s"

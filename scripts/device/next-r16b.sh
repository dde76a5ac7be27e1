#!/bin/bash
# Round 16, call 2. Kit: KIT_B=scripts/device/patches/encode-wg128.patch KIT_C=01f1a3b bash scripts/device/kit.sh
#   main   chain_encode in 3-D takes the row above from workgroup memory where the
#          workgroup holds its invocation (WG 64); auto decodes small 2-D chains with
#          chain_scan
#   wg128  fzwgpu-b = main with chain_encode's workgroups of 128 (fewer first rows
#          that quantize their row above themselves; also the 1-D and 2-D encode)
#   walk   fzwgpu-c = 01f1a3b: main before the row sharing (3-D walks of several
#          planes where planes are whole blocks, every value quantized twice)
#  1. szp_composed and szp_centered compression, CESM TS tiled (3-D, 256 MiB) and the
#     1024x1024x256 cube, the three alternating, through CUDA and Vulkan;
#  2. main against wg128 on the 1 GiB 2-D and 1-D fields;
#  3. CESM TS tiled as 1-D, the native cuSZp reference's configuration (main);
#  4. ncu of chain_encode, tiled: main against walk;
#  5. main's validation of both chain presets through both backends.
source .device/setup.sh
ab() { # label backend field-args field-label binary [limit]
  left ${6:-300} || return 0
  timeout 60 $5 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r16b-$1-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8}'
}
for be in cuda wgpu; do
  for f in "--size 256M --fields tiled|tiled" "--dims 1024x1024x256|cube"; do
    ab walk $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-c
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu
    ab wg128 $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b
  done
done
for be in cuda wgpu; do
  for f in "--size 1G --fields smooth|2d" "--dims 268435456|1d"; do
    ab main $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu 280
    ab wg128 $be "${f%|*}" "${f#*|}" /tmp/ct/fzwgpu-b 280
  done
done
for be in cuda wgpu; do
  ab main $be "-i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M" tiled-1d /tmp/ct/fzwgpu 340
  ab main $be "--dims 2048x2048" 2d-2048 /tmp/ct/fzwgpu 340
done
for v in "main|fzwgpu" "walk|fzwgpu-c"; do
  IFS='|' read -r label bin <<< "$v"
  left 380 && timeout 60 /usr/local/cuda/bin/ncu -k "regex:chain_encode" -c 1 --metrics "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active" /tmp/ct/$bin bench --backend cuda --size 256M --fields tiled --reps 1 --warmup 0 --replays 0 --presets szp_centered 2>&1 | grep -E "inst_exec|issue|warps_active|duration" | sed "s/^/ncu $label: /"
done
VAL_LEFT=400 val r16b /tmp/ct/fzwgpu "szp_composed szp_centered"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

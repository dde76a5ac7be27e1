#!/bin/bash
# Round 23, call 3 (prepared in round 23, not run: the session's device time ran out).
# Kit: KIT_B=scripts/device/patches/encode3d-row-share.patch bash scripts/device/kit.sh
#   fzwgpu-b: chain_encode_3d shares the row above through workgroup memory (each step
#   parks its own row's differences; the invocation of the next row, g + units, takes
#   them instead of quantizing that row again; the workgroup's first rows still do):
#   each 3-D value quantized about once instead of twice. NVRTC sm_90: 126 registers
#   as before, SASS 6984 -> 7176, 9.5 KiB of workgroup memory. Lavapipe: tiled 64 MiB
#   compression 0.155-0.182 -> 0.143-0.156 GB/s (barriers are slow there); kernel tests
#   pass, five mutations fail them. Round 16's ncu: chain_encode 3-D issue-bound with
#   2.9 instructions per value against 2-D's 1.58.
#   main (round 23): chain_decode_planes without COALESCE through CUDA too (measured in
#   round 23 with FZWGPU_COALESCE=0: 489 / 446 GB/s), and 1-D chain inverses through
#   Vulkan on the walking chain_decode again (chain_decode_1d only with COALESCE).
# 1. main / fzwgpu-b on CESM TS tiled to 256 MiB, both chain presets, both backends
# 2. main on the 1-D field through Vulkan (the walking form's decompression) and the
#    2-D field through Vulkan (round 22's 2-D chain_encode, not measured on main yet)
# 3. validation of fzwgpu-b's chain presets (3-D fields), both backends
source .device/setup.sh
b() { timeout 45 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets szp_composed,szp_centered --json $OUT/r23c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'; }
for r in 1 2; do for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do left 300 && b $x $be "--size 256M --fields tiled" tiled-$r; done; done; done
b fzwgpu wgpu "--dims 268435456" 1d
b fzwgpu wgpu "--size 1G --fields smooth" 2d
VAL_LEFT=520 val r23c-b /tmp/ct/fzwgpu-b "szp_composed szp_centered" 60
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Prepared in round 34 for its second call. Kit (main 34686c2, the fold without masks):
#   KIT_B=scripts/device/patches/szx-block-keys.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: the range pass writes each block's min / max keys (szx_block_keys, in place of
#    szx_range_partial for float32 SZx with blocks of 128 under NOA/REL) and the encoder
#    reads them (szx_encode8_keys) instead of folding its values: the archives are the
#    same (lavapipe: cmp on three real fields, NOA and REL)
# 1. the Vulkan driver's registers of szx_encode8_keys and szx_block_keys (b) and of
#    szx_encode8 and szx_range_partial (main)
# 2. szx kernel GB/s on the 1 GiB 2-D field, main / b alternated twice, both backends;
#    the 1-D and tiled fields, b / main
# 3. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 4. per-dispatch profiles of 2-D szx, main / b, Vulkan then CUDA
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 /tmp/ct/vkstats szx_encode8 > $OUT/r34c-vkstats.txt 2>&1
timeout 60 /tmp/ct/vkstats szx_range_partial >> $OUT/r34c-vkstats.txt 2>&1
timeout 60 /tmp/ct/vkstats-b szx_encode8_keys > $OUT/r34c-vkstats-b.txt 2>&1
timeout 60 /tmp/ct/vkstats-b szx_block_keys >> $OUT/r34c-vkstats-b.txt 2>&1
grep -hE '(szx_encode8|szx_encode8_keys|szx_range_partial|szx_block_keys) robust \[' $OUT/r34c-vkstats*.txt | cut -c1-110
b() { bench_line r34c ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  LEFT=200 b $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=280 val r34c-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=400 b $x $be "--dims 268435456" 1d szx
  LEFT=400 b $x $be "--size 256M --fields tiled" tiled szx
done; done
prof() { # LABEL BINARY BENCH-ARGS...
  local l=$1 x=$2; shift 2
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench "$@" --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
  echo "== profile $l"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A10 "submissions of [0-9]* dispatches (5" | head -16
}
for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do left 520 || break; prof "$x $be 2-D szx" $x --backend $be --size 1G --fields smooth --presets szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

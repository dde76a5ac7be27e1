#!/bin/bash
# Prepared in round 34 for its first call. Kit:
#   KIT_B=scripts/device/patches/szx-fast-fold.patch \
#   KIT_C=scripts/device/patches/szx-fold-twice.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# How much of szx_encode8's time is its min/max fold (four units per lane: keys, masks
# past the block, the special flag)?
#   b: the fold without masks (load_unit fills the positions past the block with its
#      last value) and the special flag read off the keys and one running min of
#      |x| bits - 1 (the same outputs: the kernel twins and golden files pass)
#   c: main with the fold done twice (a second fold on the words xor-ed with a runtime
#      zero): its cost, the most that moving it out of the encoder could save
# 1. the Vulkan driver's registers of szx_encode8 (main, b, c)
# 2. szx kernel GB/s on the 1 GiB 2-D field, main / b / c alternated twice, both
#    backends; then the 1-D and tiled fields, main / b
# 3. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 4. per-dispatch profiles of 2-D szx through Vulkan, main / b / c
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-b vkstats-c; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r34b-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r34b-$v.txt | cut -c1-100)"
done
b() { bench_line r34b ${LEFT:-300} "$@"; } # binary backend field-args label presets
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b fzwgpu-c; do
  LEFT=260 b $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=330 val r34b-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
  LEFT=440 b $x $be "--dims 268435456" 1d szx
  LEFT=440 b $x $be "--size 256M --fields tiled" tiled szx
done; done
prof() { # LABEL BINARY BENCH-ARGS...
  local l=$1 x=$2; shift 2
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench "$@" --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
  echo "== profile $l"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A10 "submissions of [0-9]* dispatches (5" | head -16
}
for x in fzwgpu fzwgpu-b fzwgpu-c; do left 540 || break; prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Prepared in round 32, run in round 33 on an H100 (docs/results/h100-r33a.log). Kit:
#   KIT_B=scripts/device/patches/compact-unit-walk.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/.
# Runs on whatever card comes; say which. On an H200 it re-measures the table: no H200
# has run since round 26, and rounds 29-32 changed szx_encode8 (no walk), the chain
# decoders (quad stores), the chain encoders (quad loads, slots by unit) and the
# ragged decoders.
# 1. validation.sh of main after round 32's slots (every chain encoder writes them;
#    szp_centered's blocks of 32 kept their layout): szp_composed through Vulkan as
#    given and as 1-D through both backends (the slots' largest gain, and
#    chain_compact's new loads)
# 2. the table's kernel rows: every preset on the 1 GiB 2-D field, the 1 GiB 1-D field
#    and the 256 MiB tiled field, both backends
# 3. b: chain_compact finding a search's four words with one division (then a step
#    per word) instead of four, against main on 1-D szp_composed, both backends
# 4. end to end (--replays 1) on the 1 GiB smooth field, every preset, both backends
# 5. per-dispatch profiles of 1-D szp_composed through Vulkan and CUDA (how the time
#    now splits between chain_encode_1d and chain_compact), while time is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
left 100 && run_val r33a-val-wgpu wgpu szp_composed "" 65
left 160 && run_val r33a-val-wgpu-1d wgpu szp_composed 1d 55
left 220 && run_val r33a-val-cuda-1d cuda szp_composed 1d 55
for be in wgpu cuda; do
  bench_line r33a-table 330 fzwgpu $be "--size 1G --fields smooth" 2d szx,szp_composed,szp_centered
  bench_line r33a-table 360 fzwgpu $be "--dims 268435456" 1d szx,szp_composed,szp_centered
  bench_line r33a-table 390 fzwgpu $be "--size 256M --fields tiled" tiled szx,szp_composed,szp_centered
done
for x in fzwgpu fzwgpu-b fzwgpu fzwgpu-b; do bench_line r33a-compact 420 $x wgpu "--dims 268435456" 1d szp_composed; done
for x in fzwgpu fzwgpu-b; do bench_line r33a-compact 440 $x cuda "--dims 268435456" 1d szp_composed; done
E2E_LEFT=470 e2e r33a szx,szp_composed,szp_centered
prof() { # LABEL BENCH-ARGS...
  local l=$1; shift
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/fzwgpu bench "$@" --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
  echo "== profile $l"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A14 "submissions of [0-9]* dispatches (5" | head -24
}
for be in wgpu cuda; do left 530 || break; prof "$be 1-D szp_composed" --backend $be --dims 268435456 --presets szp_composed; done
echo "total $(( $(date +%s) - T0 )) s"

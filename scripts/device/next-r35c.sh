#!/bin/bash
# Prepared in round 35 for its third call. Kit (main 0ba8057: the SZx code rounded to
# even and the flush-free first test merged):
#   KIT_B=scripts/device/patches/transfer-ramp.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: staged uploads and readbacks (wgpu and CUDA) start and end with short pieces
#    (2, 4, 8, 16 MiB up to the 32 MiB staging buffers, and no piece more than half of
#    what is left), so the step nothing overlaps at either end moves 2 MiB instead of
#    32: the archive's readback (134 MB for szx on the 2-D field) and its upload in
#    decompression should gain most. FZWGPU_TRANSFER_RAMP=off is main's behaviour.
# 1. the kernels and adversarial test binaries of main through CUDA and Vulkan (the
#    encoder changed this round)
# 2. end to end, 1 GiB 2-D smooth field, szx, --replays 1: main / b alternated twice
#    per backend (copy rates, compress_into / decompress_into and their phases)
# 3. as time allows, the table's kernel rows of main on the three fields, both backends
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "kernels adversarial" 150 120
for r in 1 2; do for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do
  left 400 || break
  timeout 60 /tmp/ct/$x bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r35c-e2e-$x-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e $x $be: /"
done; done; done
kernel_table r35c-table 560
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 36, call e: where the one-pass encoder's time goes (r36c: szx_encode8_lb 1.92 ms
# per GiB through Vulkan against szx_encode8's 0.84 + scan + szx_compact 0.18). Kit:
# r36c's, plus .device/fzwgpu-diag.xz: main e3474f8 with patches/szx-onepass-diag.patch
# (cargo build --release --features cuda, stripped, xz). LB_DIAG=1: no look-back (each
# tile's offsets from 0: the archive is inconsistent, so the bench fails after the
# profile of its compression); LB_DIAG=2: neither look-back, tile scan nor publication
# (each block written at its slot position). Per-dispatch profiles (5 replays) of the
# 2-D 1 GiB szx compression through Vulkan and CUDA: main's szx_encode8, then the
# one-pass encoder with LB_DIAG 0, 1, 2.
# As run: this script's first form grepped the raw profile for "x5" lines and printed
# nothing (1 GiB replays are listed one dispatch each); the runs below, with the raw
# profiles summarized by profile-summary.py, were then made on the warm machine.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ -x /tmp/ct/fzwgpu-diag ] || { xz -dc .device/fzwgpu-diag.xz > /tmp/ct/fzwgpu-diag && chmod +x /tmp/ct/fzwgpu-diag; }
for be in wgpu cuda; do for d in main 0 1 2; do
  if [ $d = main ]; then
    FZWGPU_PROFILE=1 timeout 40 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 1 --warmup 0 --replays 5 --presets szx > /tmp/p.log 2>&1
  else
    FZWGPU_PROFILE=1 LB_DIAG=$d FZWGPU_SZX_ONEPASS=on timeout 40 /tmp/ct/fzwgpu-diag bench --backend $be --size 1G --fields smooth --reps 1 --warmup 0 --replays 5 --presets szx > /tmp/p.log 2>&1
  fi
  cp /tmp/p.log $OUT/r36e2-$be-$d.log
  echo "== $be $d"; python3 .device/profile-summary.py /tmp/p.log 2>&1 | grep -A8 "dispatches (5" | grep -E "szx_encode8|szx_compact|scan_|span" | head -8
done; done
echo "total $(( $(date +%s) - T0 )) s"

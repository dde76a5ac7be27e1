#!/bin/bash
source .device/cuda-setup.sh
B=/tmp/ct/fzwgpu-cuda
ls /usr/local/cuda/bin 2>&1 | tr "\n" " " | head -c 600; echo
for r in 1 2; do
  for c in cuda-on wgpu cuda-clamp cuda-off; do
    be=${c%%-*}; m=${c#*-}; [ "$be" = wgpu ] && m=on
    s=$(date +%s)
    FZWGPU_CUDA_CHECKS=$m timeout 90 $B bench --backend $be --size 1G --reps 3 --presets szx --json $OUT/c6b-szx.jsonl 2>&1 | grep -E "^sz|copy" | sed "s/^/r$r $c /"
    echo "  ($(( $(date +%s)-s ))s)"
  done
done
for c in cuda-on wgpu cuda-mb10; do
  be=${c%%-*}; mb=""; [ "$c" = cuda-mb10 ] && mb=10
  FZWGPU_CUDA_MINBLOCKS=$mb timeout 100 $B bench --backend $be --size 1G --reps 3 --presets szp_composed,szp_centered --json $OUT/c6b-szp-$c.jsonl 2>&1 | grep -E "^sz|copy" | sed "s/^/$c /"
done
for be in cuda wgpu; do
  timeout 100 $B bench --backend $be --dims 268435456 --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/c6b-1d.jsonl 2>&1 | grep -E "^sz|copy" | sed "s/^/1-D $be /"
done

#!/bin/bash
# Round 37, call b. Kit: main at the overlap commits (KIT_B: anything).
# 1. tests/overlap.rs and tests/chunks.rs through CUDA and Vulkan
# 2. end to end szx on the 1 GiB 2-D field: FZWGPU_OVERLAP=on (main's default:
#    compression codes each chunk and reads its payload back while later chunks
#    upload; decompression decodes each chunk and reads it back while later chunks
#    upload and decode), upload (compression's readback at the end; decompression as
#    on), off (no overlap), alternated twice per backend. The bench itself fails if
#    compress_into's or compress's archive differs from the resident (never
#    overlapped) one, or decompress_into's field from decompress's.
# 3. the overlap chunk: 32M and 128M once per backend (default 64M)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "overlap chunks" 120 100
for be in wgpu cuda; do for r in 1 2; do for s in on upload off; do left 480 || break
  FZWGPU_OVERLAP=$s timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37b-e2e-$s-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e overlap=$s $be: /"
done; done; done
for be in wgpu cuda; do for c in 32M 128M; do left 540 || break
  FZWGPU_OVERLAP_CHUNK=$c timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37b-e2e-chunk$c-$be.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e chunk=$c $be: /"
done; done
echo "total $(( $(date +%s) - T0 )) s"

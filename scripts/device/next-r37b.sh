#!/bin/bash
# Round 37, call b. Kit: main at the streamed-compression commit (any KIT_B).
# 1. the streamed tests and the chunks tests through CUDA and Vulkan
# 2. end to end szx on the 1 GiB 2-D field: streamed with the readback overlapped
#    (FZWGPU_STREAM=on, main's default), streamed uploads only (upload), unstreamed
#    (off), alternated twice per backend; decompression streams under on and upload
#    (decoded by chunks, each read back while later chunks upload and decode). The
#    bench itself fails if compress_into's or compress's archive differs from the
#    resident (unstreamed) one, or decompress_into's field from decompress's
# 3. the stream chunk: 32M and 128M once per backend
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "streamed chunks" 120 100
for be in wgpu cuda; do for r in 1 2; do for s in on upload off; do left 480 || break
  FZWGPU_STREAM=$s timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37b-e2e-$s-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e stream=$s $be: /"
done; done; done
for be in wgpu cuda; do for c in 32M 128M; do left 540 || break
  FZWGPU_STREAM_CHUNK=$c timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r37b-e2e-chunk$c-$be.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e chunk=$c $be: /"
done; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 39, one call, next-r39c.sh cut to ~5 minutes (less device time left; no kernel table) (kit: main with direct transfers, bash scripts/device/kit.sh).
# 1. the zero-copy probe's import timings (1 GiB) and CUDA's cuMemHostRegister: what
#    importing the caller's memory costs per call on this driver (next-r39a.sh's question)
# 2. direct transfers (FZWGPU_HOST_IMPORT=on: wgpu imports the caller's memory for large
#    uploads and readbacks, VK_EXT_external_memory_host; CUDA registers it,
#    cuMemHostRegister) against the staging path, end to end szx on the 1 GiB 2-D field
#    through Vulkan then CUDA, off / on alternated twice (the copy rows follow the
#    switch too: they are write_buffer / read_into)
# 3. the transfers and pipeline tests through both backends with direct transfers on
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 /tmp/ct/zerocopy-probe 1024 --iters 5 2>&1 | tee $OUT/r39d-zerocopy-1024.txt | sed "s/^/zc 1024: /"
timeout 40 /tmp/ct/cuda-host-register 1024 2>&1 | sed "s/^/cuda register: /"
for be in wgpu cuda; do for r in 1 2; do for v in off on; do left 200 || break
  FZWGPU_HOST_IMPORT=$v timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r39d-e2e-import-$v-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e import $v $be: /"
done; done; done
grep -ho '"upload_staging": *"[^"]*"' $OUT/r39d-e2e-import-on-*.jsonl | sort | uniq -c | cut -c1-200
for be in wgpu cuda; do for b in transfers pipeline; do left 250 || break
  r=$(FZWGPU_HOST_IMPORT=on FZWGPU_TEST_BACKEND=$be timeout 70 /tmp/ct/$b --test-threads 8 2>&1)
  echo "$be+import $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done; done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 40, one call (kit: main with direct transfers, bash scripts/device/kit.sh; round
# 39's next-r39c.sh, which found no machine, plus step 3).
# 1. the zero-copy probe's import timings (1 GiB) and CUDA's cuMemHostRegister: what
#    importing the caller's memory costs per call on this driver (next-r39a.sh's question)
# 2. direct transfers (FZWGPU_HOST_IMPORT=on: wgpu imports the caller's memory for large
#    uploads and readbacks, VK_EXT_external_memory_host; CUDA registers it,
#    cuMemHostRegister) against the staging path, end to end szx on the 1 GiB 2-D field
#    through Vulkan then CUDA, off / on alternated twice (the copy rows follow the
#    switch too: they are write_buffer / read_into)
# 3. szx_encode8's occupancy through CUDA: the launch bound at 4 workgroups of 256 per
#    multiprocessor (its own, 64 registers) against 5 and 6 (FZWGPU_CUDA_MINBLOCKS, every
#    kernel: 51 and 42 registers at most), szx kernel GB/s on the 2-D field, alternated
#    twice (does more occupancy at the cost of spills pay?)
# 4. the transfers and pipeline tests through both backends with direct transfers on
# 5. main's kernel table (every preset, 2-D / 1-D / tiled, both backends) in what is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 /tmp/ct/zerocopy-probe 1024 --iters 5 2>&1 | tee $OUT/r40a-zerocopy-1024.txt | sed "s/^/zc 1024: /"
timeout 40 /tmp/ct/cuda-host-register 1024 2>&1 | sed "s/^/cuda register: /"
for be in wgpu cuda; do for r in 1 2; do for v in off on; do left 280 || break
  FZWGPU_HOST_IMPORT=$v timeout 45 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r40a-e2e-import-$v-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e import $v $be: /"
done; done; done
for r in 1 2; do for m in own 5 6; do left 300 || break
  if [ $m = own ]; then bench_line r40a-minblocks-own 300 fzwgpu cuda "--size 1G --fields smooth" 2d-own szx
  else FZWGPU_CUDA_MINBLOCKS=$m bench_line r40a-minblocks-$m 300 fzwgpu cuda "--size 1G --fields smooth" 2d-minblocks-$m szx; fi
done; done
grep -ho '"upload_staging": *"[^"]*"' $OUT/r40a-e2e-import-on-*.jsonl | sort | uniq -c | cut -c1-200
for be in wgpu cuda; do for b in transfers pipeline; do left 330 || break
  r=$(FZWGPU_HOST_IMPORT=on FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ct/$b --test-threads 8 2>&1)
  echo "$be+import $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done; done
kernel_table r40a-table 380
echo "total $(( $(date +%s) - T0 )) s"

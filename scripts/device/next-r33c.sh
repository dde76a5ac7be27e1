#!/bin/bash
# Round 33, call c. Kit: main e7b6ffa (bash scripts/device/kit.sh, no B).
# Vulkan uploads staged in host memory (src/backend/wgpu/host_staging.rs) against
# wgpu's MAP_WRITE buffers (FZWGPU_UPLOAD_STAGING=mapped), in one binary:
# 1. which memory type the staging takes on this card (`fzwgpu adapters`)
# 2. the transfer tests (both stagings) and the kernel tests through Vulkan
# 3. end to end, 1 GiB 2-D smooth field, every preset, --replays 1, host / mapped
#    alternated twice through Vulkan, then CUDA once as the reference
# 4. validation.sh of szp_composed through Vulkan (every real field), while time is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
/tmp/ct/fzwgpu adapters 2>&1 | grep -E "^selected" | cut -c1-260
FZWGPU_UPLOAD_STAGING=mapped /tmp/ct/fzwgpu adapters 2>&1 | grep -E "^selected" | cut -c1-260
for b in transfers kernels; do
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=wgpu timeout 150 /tmp/ct/$b --test-threads 8 2>&1)
  echo "wgpu $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
for m in host mapped host mapped; do
  left 420 || break
  FZWGPU_UPLOAD_STAGING=$m timeout 75 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r33c-e2e-wgpu-$m.jsonl 2>&1 | grep -E "^copy|^sz|^upload staging" | cut -c1-200 | sed "s/^/e2e wgpu $m: /"
done
left 480 && timeout 70 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed,szp_centered --json $OUT/r33c-e2e-cuda.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e cuda: /"
left 500 && run_val r33c-val-wgpu wgpu szp_composed "" 70
echo "total $(( $(date +%s) - T0 )) s"

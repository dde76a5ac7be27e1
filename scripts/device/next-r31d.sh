#!/bin/bash
# Round 31, call d: next-r31c.sh cut to the device time left (382 s): validation.sh of
# main after round 31's merges (quad loads in chain_encode / chain_encode_1d, quad
# stores in the ragged decoders). Kit: bash scripts/device/kit.sh (no patches).
# 1. both chain presets through Vulkan on every real field as given (2-D/3-D; the
#    ragged rows of 999x999, 91x91x91, 48602x12 ... take the ragged quad stores)
# 2. szp_composed as 1-D (chain_encode_1d's quad loads) through Vulkan and CUDA
# 3. the kernel and fusion test binaries through Vulkan while time is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
left 100 && run_val r31d-val-wgpu wgpu "szp_composed szp_centered" "" 120
left 180 && run_val r31d-val-wgpu-1d wgpu szp_composed 1d 55
left 240 && run_val r31d-val-cuda-1d cuda szp_composed 1d 55
for b in kernels fusion; do left 280 || break
  s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=wgpu timeout 40 /tmp/ct/$b --test-threads 8 2>&1)
  echo "wgpu $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(( $(date +%s) - s )) s"; echo "$r" | grep -E "FAILED|panicked" | head -5
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 31, call c: main after merging round 31's quad loads (chain_encode,
# chain_encode_1d) and the ragged forms' quad stores (chain_decode_ragged,
# chain_decode_planes_ragged). Kit: bash scripts/device/kit.sh (no patches).
# 1. validation.sh (each real field, three bounds, f32 and f64, byte-for-byte against
#    the cpu backend) through Vulkan for both chain presets (the 2-D/3-D shapes: quad
#    loads in chain_encode, ragged quad stores for 999x999, 91x91x91, 48602x12 ...),
#    and as 1-D (chain_encode_1d's quad loads) through Vulkan and CUDA, szp_composed
# 2. the kernel, fusion and adversarial SZp test binaries through Vulkan, kernels
#    through CUDA
# 3. end to end (--replays 1) on the 1 GiB smooth field, all three presets, both
#    backends (round 19's table; round 21's decoding without the metadata's host copy
#    is not yet measured there)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
left 150 && run_val r31c-val-wgpu wgpu "szp_composed szp_centered" "" 130
left 230 && run_val r31c-val-wgpu-1d wgpu szp_composed 1d 70
left 300 && run_val r31c-val-cuda-1d cuda szp_composed 1d 70
tests_through wgpu 380
left 330 && { s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=cuda timeout 100 /tmp/ct/kernels --test-threads 8 2>&1); echo "cuda kernels: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(( $(date +%s) - s )) s"; echo "$r" | grep -E "FAILED|panicked" | head -5; }
E2E_LEFT=400 e2e r31c szx,szp_composed,szp_centered
echo "total $(( $(date +%s) - T0 )) s"

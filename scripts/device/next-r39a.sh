#!/bin/bash
# Prepared in round 38 for the next round (not yet run). Kit: bash scripts/device/kit.sh
# (main; packs the zero-copy probe). The zero-copy probe with the caller's memory
# imported (VK_EXT_external_memory_host): what an import of 1 GiB and of 256 MiB costs
# per call on the device's driver (pinning the pages), its release, and the 4:1 kernel
# over imported memory (no host copy), beside the DMA and host-memory-buffer figures of
# round 38 (h100-r38c-zerocopy-1024.txt). If importing 1 GiB (and its N/4 output)
# costs well under the ~9 ms between a plain compress_into (~30 ms on the H100) and the
# zero-copy kernel (~21 ms), zero copy from the caller's memory is the next step for item 5 (PERFORMANCE.md, Next steps 5). Then CUDA's form of the import
# (examples/cuda_host_register.rs). About 70 s.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for m in 1024 256; do timeout 90 /tmp/ct/zerocopy-probe $m --iters 5 2>&1 | tee $OUT/r39a-zerocopy-$m.txt | sed "s/^/zc $m: /"; done
# the same question through CUDA: cuMemHostRegister of 1 GiB and 256 MiB, three times each
timeout 60 /tmp/ct/cuda-host-register 1024 2>&1 | sed "s/^/cuda register: /"
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 17, call 3 (prepared in round 16, not yet run; kit: bash scripts/device/kit.sh).
# Source-level profile of szx_encode8, the kernel furthest from its target (2-D szx
# compression 738 CUDA / 582 Vulkan against 1000; round 13: its no_instruction stall
# did not shrink with less code). FZWGPU_CUDA_LINEINFO=on compiles with -lineinfo (the
# same SASS: checked through NVRTC 13.5 for sm_90), so ncu's source counters (warp stall
# samples per SASS instruction) can be read per instruction and mapped to lines of the
# generated CUDA C (saved beside them).
source .device/setup.sh
ncu=/usr/local/cuda/bin/ncu
/tmp/ct/fzwgpu kernel-source szx_encode8 --cuda > $OUT/r17c-szx_encode8.cu 2>&1
FZWGPU_CUDA_LINEINFO=on timeout 200 $ncu -k "regex:szx_encode8" -c 1 --set full -o $OUT/r17c-szx /tmp/ct/fzwgpu bench --backend cuda --size 256M --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > $OUT/r17c-ncu-run.txt 2>&1
tail -3 $OUT/r17c-ncu-run.txt
# per-instruction stall samples (SASS with the CUDA line each came from)
timeout 120 $ncu -i $OUT/r17c-szx.ncu-rep --page source --csv --print-source sass > $OUT/r17c-source-sass.csv 2> $OUT/r17c-source-err.txt
echo "source page: $(wc -l < $OUT/r17c-source-sass.csv) lines; $(head -c 300 $OUT/r17c-source-err.txt)"
head -2 $OUT/r17c-source-sass.csv | cut -c1-400
timeout 60 $ncu -i $OUT/r17c-szx.ncu-rep --page details --section WarpStateStats --section InstructionStats --section SchedulerStats 2>&1 | grep -vE "^\s*$|----" | cut -c1-140 | head -60
echo "total $(( $(date +%s) - T0 )) s"
save_cache

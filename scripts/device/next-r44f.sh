#!/bin/bash
# Round 44, call f (run as one command line on the machine call e had left warm; kit and
# extra.tar.xz as in next-r44e.sh). szx 2-D compression through CUDA, c (the packer by
# selects) against b, alternated twice; the 1-D field, main against b, both backends;
# an ncu source profile of b's szx_encode8 through CUDA in the form without COALESCE
# (Vulkan's code; NVRTC -lineinfo; its SASS page, details page); validation.sh of main's
# chain presets through CUDA (left unrun since round 43) in the time left.
source .device/setup.sh; tar xJf .device/extra.tar.xz -C /tmp/ct
for x in fzwgpu-c fzwgpu-b fzwgpu-c fzwgpu-b; do bench_line r44f 200 $x cuda "--size 1G --fields smooth" 2d szx; done
for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do bench_line r44f 300 $x $be "--dims 268435456" 1d szx; done; done
ncu=/usr/local/cuda/bin/ncu
FZWGPU_COALESCE=0 /tmp/ct/fzwgpu-b kernel-source szx_encode8 --cuda > $OUT/r44f-encode8-c0.cu 2>&1
FZWGPU_COALESCE=0 FZWGPU_CUDA_LINEINFO=on timeout 80 $ncu -k "regex:szx_encode8" -c 1 --set full --import-source yes -o /tmp/r44f-e8 /tmp/ct/fzwgpu-b bench --backend cuda --size 1G --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > $OUT/r44f-ncu-run.txt 2>&1; echo "ncu rc=$?"
timeout 40 $ncu -i /tmp/r44f-e8.ncu-rep --page source --csv --print-source sass 2>/tmp/e.txt | xz > $OUT/r44f-e8-sass.csv.xz
echo "src $(xz -dc $OUT/r44f-e8-sass.csv.xz | wc -l) $(head -c 200 /tmp/e.txt)"
timeout 30 $ncu -i /tmp/r44f-e8.ncu-rep --page details 2>&1 | grep -vE "^\s*$|----" | cut -c1-160 > $OUT/r44f-e8-details.txt
grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Executed Instructions  |Warp Cycles Per Issued" $OUT/r44f-e8-details.txt | head
left 430 && run_val r44f-val-chain-cuda cuda "szp_composed szp_centered" "" $(( 555 - $(date +%s) + T0 ))
echo "total $(( $(date +%s) - T0 )) s"

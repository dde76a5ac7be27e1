#!/bin/bash
# Round 46, call a (kit: main ddf907a, round 45's szx_encode8 as merged). On an H200
# first (none since round 26): main's szx and chain kernel rows (setup.sh's h200_rows).
# Then on any card: main's szx 2-D row through both backends (main's form was measured
# only as a variant binary in round 45); an ncu source profile of szx_encode8 in the
# form without COALESCE (Vulkan's code) through CUDA, to see where round 44's 768
# instructions per subgroup of four blocks went (loads 101, constant test 39 before);
# main's lib test binary through CUDA (every kernel variant through NVRTC; never run
# on a device) with the time left.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
h200_rows r46a
for be in wgpu cuda wgpu cuda; do bench_line r46a 300 fzwgpu $be "--size 1G --fields smooth" 2d szx; done
ncu=/usr/local/cuda/bin/ncu
if left 330; then
  FZWGPU_COALESCE=0 FZWGPU_CUDA_LINEINFO=on timeout 80 $ncu -k "regex:szx_encode8" -c 1 --set full --import-source yes -o /tmp/r46a-e8 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > /tmp/r46a-ncu-run.txt 2>&1; echo "ncu rc=$?"
  timeout 40 $ncu -i /tmp/r46a-e8.ncu-rep --page source --csv --print-source sass 2>/tmp/e.txt | xz > $OUT/r46a-e8-sass.csv.xz
  echo "src $(xz -dc $OUT/r46a-e8-sass.csv.xz | wc -l) $(head -c 200 /tmp/e.txt)"
  timeout 30 $ncu -i /tmp/r46a-e8.ncu-rep --page details 2>&1 | grep -vE "^\s*$|----" | cut -c1-160 > $OUT/r46a-e8-details.txt
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Executed Instructions  |Warp Cycles Per Issued" $OUT/r46a-e8-details.txt | head
fi
left 420 && tests_on "lib" 540 $(( 560 - $(date +%s) + T0 ))
echo "total $(( $(date +%s) - T0 )) s"

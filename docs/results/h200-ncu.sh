#!/bin/bash
# 2026-12-03, round 7: is Nsight Compute on the device? If so, profile szx_encode and chain_encode
# (CUDA backend, 256 MiB 2-D field, one launch each) with the sections
# that say what limits them (issue slots, stalls, occupancy, memory).
source .device/cuda-setup.sh
# first HEAD's chain presets through Vulkan (chain_decode reads codes directly there
# now): eval --compare-cpu on every real field at 3 bounds, f32 and f64; the twins
echo "== kernels (wgpu)"; FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/kernels --test-threads 2 2>&1 | grep -E "test result|FAILED|panicked"
B=/tmp/ct/fzwgpu-cuda PRESETS="szp_composed szp_centered" NO_DEMO=1 timeout 120 bash .device/h200-validation.sh > $OUT/validation-wgpu.log 2>&1
echo "validation wgpu: $(grep -cE '^sz' $OUT/validation-wgpu.log) evals, FAIL: $(grep -c FAIL $OUT/validation-wgpu.log)"
ls /usr/local/cuda/bin 2>&1 | tr "\n" " " | head -c 800; echo
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "NCU=$NCU"
if [ -n "$NCU" ]; then
$NCU --version | tail -1
for k in szx_encode chain_encode; do
  p=szx; [ $k = szx_encode ] || p=szp_composed
  S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters"
  M=smsp__inst_executed.sum; for r in long_scoreboard short_scoreboard wait math_pipe_throttle lg_throttle not_selected no_instruction branch_resolving mio_throttle barrier membar dispatch_stall; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
  A="/tmp/ct/fzwgpu-cuda bench --backend cuda --size 256M --reps 1 --warmup 0 --replays 0 --presets $p"
  timeout 70 $NCU -k $k -c 1 $S --metrics $M $A > $OUT/ncu-$k.txt 2>&1; rc=$?
  if ! grep -q "Duration" $OUT/ncu-$k.txt; then echo "(without --metrics)"; tail -3 $OUT/ncu-$k.txt; timeout 60 $NCU -k $k -c 1 $S $A > $OUT/ncu-$k.txt 2>&1; rc=$?; fi
  echo "$k rc=$rc"; grep -E "stalled|inst_executed" $OUT/ncu-$k.txt | head -14; grep -E "Duration|Issue Slots Busy|Issued Warp|No Eligible|Achieved Occupancy|Registers Per|Memory Throughput|Executed Ipc A|Warp Cycles Per Issued" $OUT/ncu-$k.txt | head -14
done
fi

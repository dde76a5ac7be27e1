#!/bin/bash
# Round 18, call 3 (kit: bash scripts/device/kit.sh). Profiles only (CUDA, ncu):
#  1. chain_encode_flat against chain_encode on 2-D fields of 256 MiB (8190x8192 and
#     8188x8192, whose rows above are 16-byte aligned,
#     against 8192x8192, szp_composed): where the flat kernel's time goes (half the
#     aligned speed in round 17): instructions, issue, stalls, memory traffic;
#  2. szx_encode8 by source line (next-r17c.sh, prepared in round 16: ncu source counters
#     per SASS instruction with FZWGPU_CUDA_LINEINFO=on, which adds -lineinfo only).
source .device/setup.sh
ncu=/usr/local/cuda/bin/ncu
m="smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,regex:smsp__average_warps_issue_stalled_(long_scoreboard|wait|barrier|no_instruction|short_scoreboard|not_selected|math_pipe_throttle|lg_throttle|mio_throttle|drain)_per_issue_active\.ratio"
for d in 8192x8192 8190x8192 8188x8192; do
  left 250 || break
  timeout 90 $ncu -k "regex:chain_encode" -c 1 --section LaunchStats --section Occupancy --metrics "$m" /tmp/ct/fzwgpu bench --backend cuda --dims $d --reps 1 --warmup 0 --replays 0 --presets szp_composed > $OUT/r18c-ncu-$d.txt 2>&1
  grep -E "chain_encode|Duration|inst_exec|issue_active|stalled|warps_active|dram__|lts__|l1tex__|Registers Per|Achieved Occ|Grid Size|Block Size" $OUT/r18c-ncu-$d.txt | cut -c1-130 | sed "s/^/ncu $d: /"
done
left 300 && bash .device/next-r17c.sh
echo "total $(( $(date +%s) - T0 )) s"
save_cache

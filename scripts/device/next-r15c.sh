#!/bin/bash
# Round 15, call 3: ncu of the 3-D chain_scan inverse after r15b (CUDA, CESM TS tiled
# 256 MiB, szp_centered): where chain_scan_x (0.469 ms of 0.85 through Vulkan) spends
# its time: issue slots, stall reasons, L1/L2/DRAM throughput; lorenzo_scan_axis and
# chain_scan_last beside it for reference.
source .device/setup.sh
timeout 200 /usr/local/cuda/bin/ncu -k "regex:chain_scan|lorenzo_scan_axis" -c 3 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --metrics "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum" /tmp/ct/fzwgpu bench --backend cuda --size 256M --fields tiled --reps 1 --warmup 0 --replays 0 --presets szp_centered > $OUT/r15c-ncu.txt 2>&1
echo "rc $?"
grep -vE "^\s*$|----" $OUT/r15c-ncu.txt | grep -E "chain_scan|lorenzo_scan|Duration|Throughput|Stall|stall|inst_executed|issue_active|lts__|l1tex__|dram__|Registers|Occupancy|Warp Cycles|Issued|Eligible|Active Warps" | cut -c1-150 | head -150
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Prepared in round 35 for the next round (not yet run). Kit (main):
#   KIT_B=scripts/device/patches/szx-fewer-exchanges.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: two exchanges of szx_encode8 fewer per block, the same outputs (lavapipe: the
#    kernel twins pass, szx_encode_lone_subnormals among them):
#    - the special flag rides on the max key (a lane holding a nonzero subnormal
#      reports key 0xffffffff), so no butterfly of its own (3 shuffles per lane);
#    - the constant test's team reduction runs only where some block of the subgroup
#      may be constant (its range at most two steps; sg_any, as the retry does): on
#      the 2-D field ~5% of blocks are constant.
# szx_ab (setup.sh), as next-r35b.sh ran it:
# 1. the Vulkan driver's registers of szx_encode8 (main, b)
# 2. szx kernel GB/s on the 1 GiB 2-D field, main / b alternated twice, both backends;
#    then the 1-D and tiled fields, b / main
# 3. validation.sh of b's szx through both backends (byte-for-byte with the cpu backend)
# 4. per-dispatch profiles of 2-D and tiled szx through Vulkan, main / b
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
szx_ab r36b
echo "total $(( $(date +%s) - T0 )) s"

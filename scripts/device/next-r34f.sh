#!/bin/bash
# Prepared in round 34 after call d (kernels through CUDA: chain_decode_ragged's last
# piece dropped where the test bound the output unpadded). Kit: bash scripts/device/kit.sh
# (main, with the test binding the ragged decoder's output as the stage does, padded
# to 16 bytes with the padding checked unwritten).
# 1. the kernels test binary through CUDA and Vulkan (every kernel against its twin)
# 2. the other test binaries of call d through CUDA, while time is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "kernels" 120 110
tests_on "fusion adversarial_szp" 200 60
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 44, call a (kit: main). What round 43 left unrun on a device: main's kernels
# binary through both backends (the chain encoders' conversion-free codes as merged,
# behind #ifndef COALESCE), the lib binary through CUDA (every variant through NVRTC,
# szx_encode8 / szx_encode without COALESCE among them), validation.sh of the chain
# presets through CUDA; then on an H200 main's kernel rows (setup.sh's h200_rows).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tests_on "kernels" 200 100
tests_on "lib" 260 110
run_val r44a-val-chain-cuda cuda "szp_composed szp_centered" "" 150
h200_rows r44a-table
echo "total $(( $(date +%s) - T0 )) s"

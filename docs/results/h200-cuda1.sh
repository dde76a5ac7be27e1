#!/bin/bash
# First CUDA-backend run on the H200: NVRTC, sanity bench, conformance tests.
source .device/vulkan-env.sh
mkdir -p /tmp/ct && tar xJf .device/cuda-tests.tar.xz -C /tmp/ct
NV=$(ldconfig -p | grep -o "/[^ ]*libnvrtc.so[.0-9]*" | head -1)
[ -z "$NV" ] && NV=$(find /usr/local /opt /usr/lib -name "libnvrtc.so*" 2>/dev/null | grep -v alt | head -1)
echo "nvrtc: $NV"; ls -la $(dirname "$NV") | grep -i nvrtc
export LD_LIBRARY_PATH=$(dirname "$NV"):$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export FZWGPU_DATA_DIR=.device/data
B=/tmp/ct/fzwgpu-cuda
echo "== nvrtc compile all"; timeout 200 /tmp/ct/unit every_kernel_compiles 2>&1 | tail -5
echo "== sanity bench"; timeout 120 $B bench --backend cuda --size 64M --reps 1 --presets szx 2>&1 | grep -v '^sz[a-z_]* .*{' | tail -15
for t in kernels fusion stages adversarial adversarial_szp; do
  echo "== test $t (cuda)"; FZWGPU_TEST_BACKEND=cuda timeout 150 /tmp/ct/$t --test-threads 2 2>&1 | grep -E "^test |test result|panicked|differs|violat" | grep -v " ok$" | head -30
done

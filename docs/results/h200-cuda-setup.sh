source .device/vulkan-env.sh
mkdir -p /tmp/ct && [ -x /tmp/ct/fzwgpu-cuda ] || tar xJf .device/cuda-tests.tar.xz -C /tmp/ct
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
export FZWGPU_DATA_DIR=.device/data

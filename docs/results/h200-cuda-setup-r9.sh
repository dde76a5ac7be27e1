# Round 9 set-up on the H200 machine: the Vulkan loader, the binaries in /tmp/ct (the
# CLI at main and at exp/compact-search, main's test binaries), the real fields in
# /tmp/data, NVRTC on the library path, and the CUDA kernel cache (if one came along).
source .device/vulkan-env.sh
mkdir -p /tmp/ct /tmp/data
[ -x /tmp/ct/fzwgpu-cuda-r9 ] || tar xJf .device/r9-all.tar.xz -C /tmp/ct
[ -f /tmp/data/SHA256SUMS ] || tar xJf .device/data.tar.xz -C /tmp/data
[ -f .device/cubin-cache.tar ] && mkdir -p $HOME/.cache/fzwgpu && tar xf .device/cubin-cache.tar -C $HOME/.cache/fzwgpu 2>/dev/null
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:$LD_LIBRARY_PATH
export FZWGPU_DATA_DIR=/tmp/data FZWGPU_BIN=/tmp/ct/fzwgpu-cuda-r9
save_cache() { tar cf $OUT/cubin-cache.tar -C $HOME/.cache/fzwgpu . 2>/dev/null; }

# Sourced at the start of every device command (see kit.sh): the Vulkan loader, the
# kit's binaries in /tmp/ct (fzwgpu, fzwgpu-b, the test binaries), the real fields in
# /tmp/data, NVRTC on the library path, the CUDA kernel cache if one came along
# (.device/cubin-cache.tar; save_cache writes it to $OUT for the next machine).
source .device/vulkan-env.sh
mkdir -p /tmp/ct /tmp/data
[ -x /tmp/ct/fzwgpu ] || tar xJf .device/kit.tar.xz -C /tmp/ct
[ -f /tmp/data/SHA256SUMS ] || tar xJf .device/data.tar.xz -C /tmp/data
if [ -f .device/cubin-cache.tar ]; then mkdir -p "$HOME/.cache/fzwgpu" && tar xf .device/cubin-cache.tar -C "$HOME/.cache/fzwgpu" 2>/dev/null || true; fi
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export FZWGPU_DATA_DIR=/tmp/data FZWGPU_BIN=/tmp/ct/fzwgpu
save_cache() { tar cf "$OUT/cubin-cache.tar" -C "$HOME/.cache/fzwgpu" . 2>/dev/null || true; }
T0=$(date +%s)
# left [seconds]: true while the command has run less than that (default 520 s)
left() { [ $(( $(date +%s) - T0 )) -lt "${1:-520}" ]; }
# watched SECS LOG CMD...: run CMD with its output in LOG; past SECS, print each thread's
# name, wait channel and kernel stack (and a gdb backtrace where gdb exists), then kill
# it (the faults binary hung twice in the suite through CUDA, never alone: round 13)
watched() {
  local secs=$1 log=$2 s=$(date +%s) pid; shift 2
  "$@" > "$log" 2>&1 & pid=$!
  while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - s )) -lt $secs ]; do sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    echo "HANG after $secs s: $*"
    for tk in /proc/$pid/task/*; do echo "  task $(cat $tk/comm 2>/dev/null) wchan=$(cat $tk/wchan 2>/dev/null)"; head -6 $tk/stack 2>/dev/null | sed 's/^/      /'; done
    command -v gdb >/dev/null && timeout 30 gdb -p $pid -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread" | cut -c1-200 | head -80
    kill -9 $pid; wait $pid 2>/dev/null; return 124
  fi
  wait $pid
}

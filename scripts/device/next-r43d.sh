#!/bin/bash
# Round 43, call d (kit as call c: main 4a20d0e, fzwgpu-c = main with
# scripts/device/patches/chain-magic-int.patch from .device/extra.tar.xz). What call c
# had no time for: chain_encode's fast path without conversions (c) against main
# through CUDA (both chain presets, 1-D and 2-D fields), then main's kernels test
# binary through Vulkan.
source .device/setup.sh
[ -f .device/extra.tar.xz ] && tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
bench2() {
  left $2 || return 0
  timeout 70 /tmp/ct/$3 bench --backend $4 $5 --reps 3 --presets szp_composed,szp_centered --json $OUT/$1-$4.jsonl 2>&1 | grep -E "^sz" | awk -v t="$3 $4 $6" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
for x in fzwgpu-c fzwgpu; do
  bench2 r43d 120 $x cuda "--dims 268435456" 1d
  bench2 r43d 120 $x cuda "--size 1G --fields smooth" 2d
done
if left 190; then
  s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/kernels --test-threads 8 2>&1)
  echo "wgpu kernels: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
fi
echo "total $(( $(date +%s) - T0 )) s"

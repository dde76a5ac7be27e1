#!/bin/bash
# Round 16, call 5 (kit of 5dfa6ee): is the slow chain compression of a machine's first
# Vulkan processes (r16c round 1: 2-D szp_composed 576 against 761) reproducible on a
# fresh machine? The same 2-D bench through Vulkan three times in a row, with the SM
# clock and the shader disk cache size before each.
source .device/setup.sh
for i in 1 2 3; do
  left 150 || break
  echo "run $i: $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader 2>/dev/null) cache $(du -sh $HOME/.cache/nvidia 2>/dev/null | cut -f1)"
  timeout 60 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r16e-wgpu.jsonl 2>&1 | grep -E "^sz" | awk -v t="$i" '{print t, $1, "compress", $3, "decompress", $8}'
done
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 49: lavapipe with LP_NATIVE_VECTOR_WIDTH=1024 reports subgroups of 32 but runs
# them 16 active; main before the subgroup layout check (8480c97) wrote archives its
# own decoder rejects, main with it (the check turns subgroups off) writes the cpu
# backend's archives.
# Usage: bash docs/results/r49-subgroup-layout.sh OLD_CLI NEW_CLI ../shared/data
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan
old=$1 new=$2 f=$3/sperr_999x999.f32 t=$(mktemp -d)
for w in 256 512 1024; do echo "LP_NATIVE_VECTOR_WIDTH=$w: $(LP_NATIVE_VECTOR_WIDTH=$w $new adapters 2>&1 | tail -1 | grep -o 'subgroups=[a-z]* ([^)]*)')"; done
for p in szx szp_composed; do
  $new compress -i $f -o $t/cpu.fzm --dims 999x999 --preset $p --backend cpu > /dev/null 2>&1
  for x in old new; do
    LP_NATIVE_VECTOR_WIDTH=1024 ${!x} compress -i $f -o $t/$x.fzm --dims 999x999 --preset $p --backend wgpu > /dev/null 2>&1
    echo "$p, $x CLI, 1024 bits: compress rc=$? $(cmp -s $t/$x.fzm $t/cpu.fzm && echo 'archive == the cpu backend archive' || echo 'archive differs from the cpu backend archive'); decompress: $($new decompress -i $t/$x.fzm -o $t/$x.out --backend cpu 2>&1 | tail -1 | cut -c1-90)"
  done
done
rm -rf $t

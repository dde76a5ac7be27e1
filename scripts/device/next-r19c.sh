#!/bin/bash
# Round 19, calls 2 and 3 (kit: bash scripts/device/kit.sh at main with the ragged-shift
# stores merged).
#   bash .device/next-r19c.sh wgpu : the kernel, fusion and adversarial SZp tests through
#     Vulkan; validation.sh of both chain presets through Vulkan (its small real fields
#     decode with chain_scan under auto: this checks the rest); then README's table
#     (next-r19b.sh's fields and presets) once through Vulkan with the pre-heat
#   bash .device/next-r19c.sh cuda : the same tests through CUDA, the table once more
#     through Vulkan, then once through CUDA
source .device/setup.sh
be=${1:?cuda or wgpu}
for b in kernels fusion adversarial_szp; do
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=$be timeout 120 /tmp/ct/$b --test-threads 8 2>&1)
  echo "$be $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
if [ "$be" = wgpu ]; then
  VAL_LEFT=200
  for p in szp_composed szp_centered; do
    left 300 || break
    B=/tmp/ct/fzwgpu EXTRA="--backend wgpu" PRESETS="$p" timeout 130 bash .device/validation.sh > $OUT/r19c-val-$p-wgpu.log 2>&1
    echo "validation $p wgpu: $(grep -cE '^sz' $OUT/r19c-val-$p-wgpu.log) passed, $(grep -c '^FAIL' $OUT/r19c-val-$p-wgpu.log) failed, $(grep -c ALL_DONE $OUT/r19c-val-$p-wgpu.log) done"
    grep '^FAIL' $OUT/r19c-val-$p-wgpu.log | cut -c1-160 | head -3
  done
fi
table() { # round backend
  for f in "--size 1G --fields smooth|2d" "--dims 268435456|1d" "--size 256M --fields tiled|tiled" "-i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M|tiled-1d" "--dims 1024x1024x256|cube"; do
    left ${LEFT:-500} || break
    timeout 100 /tmp/ct/fzwgpu bench --backend $2 ${f%|*} --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r19c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 ${f#*|}" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8}'
  done
}
if [ "$be" = wgpu ]; then
  table 1 wgpu
else
  LEFT=260 table 2 wgpu
  table 1 cuda
fi
echo "total $(( $(date +%s) - T0 )) s"

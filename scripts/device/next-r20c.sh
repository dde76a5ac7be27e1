#!/bin/bash
# Round 20, call 3. Kit (main with search-unrolled and compact-vec4 merged, 1104a49):
#   KIT_B=scripts/device/patches/decode-scan-unrolled.patch \
#   KIT_C=scripts/device/patches/chain-scan-unrolled.patch bash scripts/device/kit.sh
#   fzwgpu-b: chain_decode's subgroup scan over a tile row written out step by step
#     (vkstats r20a: chain_decode 95 registers with naga's loop counters, 72 without)
#   fzwgpu-c: the same plus chain_encode's butterfly maximum over a block written out
# 1. the kernel, fusion and adversarial SZp tests on main through both backends
# 2. A/B through Vulkan: main, fzwgpu-b, fzwgpu-c, then main under
#    FZWGPU_SHADER_CHECKS=noloop (diagnostic: what all loop counters cost now), on the
#    1-D and 2-D chain fields
# 3. README's table (next-r19c.sh's fields and presets) on main, once per backend
source .device/setup.sh
for be in wgpu cuda; do
  for b in kernels fusion adversarial_szp; do
    s=$(date +%s)
    r=$(FZWGPU_TEST_BACKEND=$be timeout 120 /tmp/ct/$b --test-threads 8 2>&1)
    echo "$be $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
    echo "$r" | grep -E "FAILED|panicked" | head -5
  done
done
ab() { # label binary [env]
  timeout 40 env $3 /tmp/ct/$2 bench --backend wgpu --dims 268435456 --reps 3 --presets szp_composed,szp_centered --json $OUT/r20c-ab.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 wgpu 1d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
  timeout 40 env $3 /tmp/ct/$2 bench --backend wgpu --size 1G --fields smooth --reps 3 --presets szp_composed,szp_centered --json $OUT/r20c-ab.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 wgpu 2d" '{print t, $1, "compress", $3, "decompress", $8, "ok", $NF}'
}
left 200 && ab main fzwgpu
left 240 && ab b fzwgpu-b
left 280 && ab c fzwgpu-c
left 320 && ab noloop fzwgpu FZWGPU_SHADER_CHECKS=noloop
table() { # round backend
  for f in "--size 1G --fields smooth|2d" "--dims 268435456|1d" "--size 256M --fields tiled|tiled" "-i /tmp/data/cesm_camfv_TS_10x192x288.f32 --dims 552960 --tile --size 256M|tiled-1d" "--dims 1024x1024x256|cube"; do
    left ${LEFT:-540} || break
    timeout 100 /tmp/ct/fzwgpu bench --backend $2 ${f%|*} --reps 3 --presets szx,szp_composed,szp_centered --json $OUT/r20c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 ${f#*|}" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8}'
  done
}
LEFT=400 table 1 wgpu
table 1 cuda
echo "total $(( $(date +%s) - T0 )) s"

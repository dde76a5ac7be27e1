#!/bin/bash
# Round 24, call 3 (prepared in round 24, not run: no device time was left). Kit:
#   KIT_B=4379c91 KIT_C=scripts/device/patches/slots-interleaved.patch bash scripts/device/kit.sh
#   main: round 24's kernels: szx_compact's 16-byte pieces and szx_range_final's eight
#     parts per step (both backends; measured as patches in call 2: szx 2-D 793 / 658 ->
#     821 / 686), chain_encode's COALESCE variant (CUDA's default: the walk's previous
#     step in workgroup memory; as a patch, CUDA 2-D 842 / 743 -> 926 / 768).
#   fzwgpu-b: main before those kernels (4379c91).
#   fzwgpu-c: main with slots-interleaved.patch: blocks of 32 values (szp_centered's
#     AdaptiveBitpack) keep their slot words interleaved in groups of 32 blocks, so a
#     subgroup's stores and chain_compact's loads of the blocks' m-th words are side by
#     side (they were 128 bytes apart), and chain_compact moves such blocks one per
#     invocation with no search. Lavapipe: 2-D szp_centered compression 0.326-0.359 ->
#     0.382-0.384 GB/s, chain_compact 21.3 -> 11.8 ms (docs/results/lavapipe-r24-slots-ab.log);
#     the question is the H200's 2-D szp_centered (709 Vulkan / 768 CUDA against
#     szp_composed's 892 / 926 with the same chain_encode).
# Runs on whatever card comes: only A/B within this call counts; say which card.
# 1. vkstats of szx_encode8 and the chain kernels (registers through Vulkan)
# 2. A/B on the 2-D 1 GiB field: chain presets main / b / c through Vulkan and CUDA;
#    szx main / b through both; szp_centered main / c on the 1-D field and CESM TS
#    tiled to 256 MiB through both
# 3. validation: main's szx through both backends; fzwgpu-c's chain presets through both
#    (validation.sh: every real field, 3 bounds, f32 and f64); main's chain presets
#    through CUDA on fields the 2-D chain_encode takes (its COALESCE variant)
# 4. the 2-D chain A/B once more while time is left
source .device/setup.sh
timeout 60 /tmp/ct/vkstats szx_encode8 szx_compact chain_encode chain_encode_1d chain_decode chain_compact > $OUT/r24c-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r24c-vkstats.txt | cut -c1-120
b() { # binary backend fields-args label presets
  left ${LEFT:-330} || return 0
  timeout 45 /tmp/ct/$1 bench --backend $2 $3 --reps 3 --presets $5 --json $OUT/r24c-$2.jsonl 2>&1 | grep -E "^sz" | awk -v t="$1 $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
ab2d() { for be in wgpu cuda; do for x in fzwgpu fzwgpu-b fzwgpu-c; do b $x $be "--size 1G --fields smooth" 2d-$1 szp_composed,szp_centered; done; done; }
ab2d 1
for x in fzwgpu fzwgpu-b; do b $x wgpu "--size 1G --fields smooth" 2d szx; b $x cuda "--size 1G --fields smooth" 2d szx; done
for x in fzwgpu fzwgpu-c; do b $x wgpu "--dims 268435456" 1d szp_centered; b $x cuda "--dims 268435456" 1d szp_centered; done
# the tiled 3-D field (szp_centered: blocks of 32 there too; native cuSZp compresses it at 332-386)
for x in fzwgpu fzwgpu-c; do b $x wgpu "--size 256M --fields tiled" tiled szp_centered; b $x cuda "--size 256M --fields tiled" tiled szp_centered; done
echo "ab done $(( $(date +%s) - T0 )) s"
VAL_LEFT=360 val r24c-szx /tmp/ct/fzwgpu "szx" 35
VAL_LEFT=440 val r24c-c /tmp/ct/fzwgpu-c "szp_centered szp_composed" 50
for f in sperr_vorticity_512x512:512x512 cesm_camfv_TS_10x192x288:288x1920 cesm_camfv_PRECT_10x192x288:288x1920 sperr_vorticity_41x128x128:128x5248; do
  for p in szp_composed szp_centered; do for rel in 1e-2 1e-3 1e-4; do
    left 500 || break 3
    o=$(timeout 20 /tmp/ct/fzwgpu eval --backend cuda -i /tmp/data/${f%%:*}.f32 --dims ${f##*:} --preset $p --eb $rel --mode noa --json --repeat 2 --compare-cpu 2>&1) && echo "$p $f $rel $(echo "$o" | tail -1)" >> $OUT/r24c-chain-val-cuda.log || echo "FAIL $p $f $rel: $o" >> $OUT/r24c-chain-val-cuda.log
  done; done
done
echo "validation main chain cuda (2-D chain_encode): $(grep -cE '^sz' $OUT/r24c-chain-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r24c-chain-val-cuda.log) failed"
grep '^FAIL' $OUT/r24c-chain-val-cuda.log | cut -c1-200 | head -3
LEFT=540 ab2d 2
echo "total $(( $(date +%s) - T0 )) s"

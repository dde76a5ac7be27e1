#!/bin/bash
# Prepared in round 32 (after calls a and b). Kit:
#   KIT_B=scripts/device/patches/slots-units.patch bash scripts/device/kit.sh
# Runs on whatever card comes; say which (A/B only within the call).
# 1. main (329f281: chain_decode_ragged without its COALESCE form, so CUDA stores the
#    ragged rows by quads too): validation.sh of both chain presets through CUDA on
#    every real field as given (999x999, 91x91x91, 48602x12 ... are ragged), and the
#    bench on 8190x32768 through CUDA (r32a with FZWGPU_COALESCE=0: 927 / 869)
# 2. b: the slots of every block size interleaved by unit (32 values, one invocation)
#    in groups of 32 units, as blocks of 32 have been since round 26. szp_composed's
#    blocks of 128 then store a subgroup's k-th words side by side (they were w words
#    apart within a block and 512 bytes apart between blocks); chain_compact loads a
#    block's words one by one (128 bytes apart) instead of by vec4. Against main on the
#    1 GiB 1-D field (szp_composed through Vulkan: 617, the row below 800), the 2-D
#    field and the tiled field, both backends; validation.sh of b (szp_composed as given
#    and as 1-D through Vulkan) while time is left
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
left 100 && run_val r32c-val-cuda cuda "szp_composed szp_centered" "" 110
bench_line r32c-rag 200 fzwgpu cuda "--dims 8190x32768" ragged szp_composed,szp_centered
D1="--dims 268435456"; D2="--size 1G --fields smooth"; DT="--size 256M --fields tiled"
for x in fzwgpu fzwgpu-b fzwgpu fzwgpu-b; do bench_line r32c-1d 300 $x wgpu "$D1" 1d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-b; do bench_line r32c-1d 330 $x cuda "$D1" 1d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-b; do bench_line r32c-2d 360 $x wgpu "$D2" 2d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-b; do bench_line r32c-2d 390 $x cuda "$D2" 2d szp_composed,szp_centered; done
for x in fzwgpu fzwgpu-b; do bench_line r32c-tiled 410 $x wgpu "$DT" tiled szp_composed,szp_centered; done
left 430 && { SHAPE=1d B=/tmp/ct/fzwgpu-b EXTRA="--backend wgpu" PRESETS=szp_composed timeout 50 bash .device/validation.sh > $OUT/r32c-b-val-wgpu-1d.log 2>&1
  echo "validation r32c-b-val-wgpu-1d: $(grep -cE '^sz' $OUT/r32c-b-val-wgpu-1d.log) passed, $(grep -c '^FAIL' $OUT/r32c-b-val-wgpu-1d.log) failed, $(grep -c ALL_DONE $OUT/r32c-b-val-wgpu-1d.log) done"; }
left 480 && { B=/tmp/ct/fzwgpu-b EXTRA="--backend wgpu" PRESETS=szp_composed timeout 60 bash .device/validation.sh > $OUT/r32c-b-val-wgpu.log 2>&1
  echo "validation r32c-b-val-wgpu: $(grep -cE '^sz' $OUT/r32c-b-val-wgpu.log) passed, $(grep -c '^FAIL' $OUT/r32c-b-val-wgpu.log) failed, $(grep -c ALL_DONE $OUT/r32c-b-val-wgpu.log) done"; }
echo "total $(( $(date +%s) - T0 )) s"

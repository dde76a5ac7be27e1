#!/bin/bash
# Round 28, call b: szx_encode8 with teams of 4 lanes (32 values per lane, eight blocks
# per 32-lane subgroup; scripts/device/patches/szx-team4.patch) against main (teams of 8,
# 16 values per lane). Kit: KIT_B=scripts/device/patches/szx-team4.patch bash scripts/device/kit.sh
# Runs on whatever card comes: only A/B within this call counts; say which card.
# 1. NVRTC registers, stack and SASS size of szx_encode8, both
# 2. 2-D szx (1 GiB smooth), both backends, main / b
# 3. b's szx validation through both backends (eval --compare-cpu, every real field)
# 4. tiled and 1-D rows, both backends
# 5. per-dispatch profiles of 2-D szx through Vulkan, main and b
# 6. step 2 again while time is left
source .device/setup.sh
for x in fzwgpu fzwgpu-b; do
  timeout 60 /tmp/ct/$x kernel-source szx_encode8 --cuda --cubin /tmp/$x.cubin > /dev/null 2>&1
  echo "$x szx_encode8: $(/usr/local/cuda/bin/cuobjdump --dump-resource-usage /tmp/$x.cubin 2>&1 | grep -oE 'REG:[0-9]+|STACK:[0-9]+|LOCAL:[0-9]+' | tr '\n' ' ') SASS $(/usr/local/cuda/bin/cuobjdump -sass /tmp/$x.cubin 2>/dev/null | grep -cE '^\s+/\*[0-9a-f]{4}\*/')"
done
b() { bench_line r28b ${LEFT:-330} "$@"; } # binary backend field-args label presets
for be in cuda wgpu; do for x in fzwgpu fzwgpu-b; do b $x $be "--size 1G --fields smooth" 2d szx; done; done
VAL_LEFT=330 val r28b-b /tmp/ct/fzwgpu-b szx 100
for be in cuda wgpu; do for x in fzwgpu fzwgpu-b; do
  LEFT=420 b $x $be "--size 256M --fields tiled" tiled szx
  LEFT=420 b $x $be "--dims 268435456" 1d szx
done; done
for x in fzwgpu fzwgpu-b; do
  left 470 || break
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench --backend wgpu --size 1G --fields smooth --presets szx --reps 1 --warmup 0 --replays 5 > /tmp/prof-$x.log 2>&1
  echo "== profile $x wgpu"; python3 .device/profile-summary.py /tmp/prof-$x.log 2>&1 | grep -A12 "submissions of [0-9]* dispatches (5" | grep -E "submissions|szx_|scan_" | head -8
done
for be in cuda wgpu; do for x in fzwgpu-b fzwgpu; do LEFT=540 b $x $be "--size 1G --fields smooth" 2d-2 szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

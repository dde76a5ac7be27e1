#!/bin/bash
# Round 27, call a: szx_encode8 writing compacted tile runs + szx_gather (main, cef63cb
# and later) against the round-26 tree (szx_encode8's per-block slots + szx_compact).
# Kit: KIT_B=f8219e9 bash scripts/device/kit.sh   (fzwgpu-b = round 26's main)
# Runs on whatever card comes: only A/B within this call counts; say which card.
# 1. the kernel twins (szx_encode8 -> szx_gather against szx_encode -> szx_compact on
#    the device), layouts and fusion tests, through both backends
# 2. vkstats of szx_encode8 and szx_gather (registers through Vulkan)
# 3. main / b: 2-D szx (1 GiB smooth), the tiled 3-D field, 1-D (all-constant), both backends
# 4. per-dispatch profiles of 2-D szx, main and b, both backends (profile-summary.py)
# 5. szx validation of main through both backends (eval --compare-cpu, every real field)
# 6. step 3's 2-D rows again while time is left
source .device/setup.sh
tests_on "kernels layouts fusion" 200 150
timeout 60 /tmp/ct/vkstats szx_encode8 szx_gather szx_compact > $OUT/r27a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r27a-vkstats.txt | cut -c1-120
b() { bench_line r27a ${LEFT:-540} "$@"; } # binary backend field-args label presets
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b; do
    b $x $be "--size 1G --fields smooth" 2d szx
    b $x $be "--size 256M --fields tiled" tiled szx
    b $x $be "--dims 268435456" 1d szx
  done
done
echo "round 1 done $(( $(date +%s) - T0 )) s"
for be in cuda wgpu; do
  for x in fzwgpu fzwgpu-b; do
    left 420 || break
    FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench --backend $be --size 1G --fields smooth --presets szx --reps 1 --warmup 0 --replays 5 > /tmp/prof-$x-$be.log 2>&1
    echo "== profile $x $be"; python3 .device/profile-summary.py /tmp/prof-$x-$be.log 2>&1 | grep -E "szx_|scan_|submissions of [0-9]+ dispatches \(5" | head -14
  done
done
VAL_LEFT=500 val r27a /tmp/ct/fzwgpu szx 100
for be in cuda wgpu; do for x in fzwgpu fzwgpu-b; do LEFT=560 b $x $be "--size 1G --fields smooth" 2d-2 szx; done; done
echo "total $(( $(date +%s) - T0 )) s"

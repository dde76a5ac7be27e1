#!/bin/bash
# NEVER RAN (round 48: no machine); superseded by next-r48c.sh. The lazy poll was merged
# in 09f2b48, so this kit's KIT_D / KIT_E patches no longer apply to main.
# Round 48, call b (kit: main at this script's commit or later, built by kit.sh with
# KIT_B=scripts/device/patches/lookback-skip-diag.patch, KIT_C=...lookback-wid.patch,
# KIT_D=...lookback-lazy-aggregate.patch, KIT_E: lookback-wid.patch and that one together, a patch since removed). Every
# variant runs the one pass (FZWGPU_SZX_LOOKBACK=on, wrappers fzwgpu-Xon): on = main's,
# bon = no look-back at all (a diagnostic: wrong archives, so only its per-dispatch
# profile counts: the one pass's cost without the look-back), con = the tile from the
# workgroup id instead of a ticket, don = the poll reads a tile's aggregate only where
# its inclusive prefix is not ready (round 48a: Vulkan 538 / 536 against 507 / 506),
# eon = both. (1) Registers of szx_encode8_lookback in each. (2) Per-dispatch profiles
# of the 2-D szx compression through Vulkan: main's three passes, on, bon. (3) szx 2-D
# kernel GB/s: fzwgpu (three passes), on, con, don, eon, through Vulkan, then CUDA,
# then Vulkan again. (4) The same profiles through CUDA. (5) validation.sh of eon.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in b c d e; do
  printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu-%s "$@"\n' $s > /tmp/ct/fzwgpu-${s}on && chmod +x /tmp/ct/fzwgpu-${s}on
done
printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-on && chmod +x /tmp/ct/fzwgpu-on
for v in vkstats vkstats-b vkstats-c vkstats-d vkstats-e; do
  timeout 30 /tmp/ct/$v szx_encode8_lookback > $OUT/r48b-$v.txt 2>&1
  echo "$v: $(grep -E 'robust \[' $OUT/r48b-$v.txt | head -1 | cut -c1-100)"
done
for x in fzwgpu fzwgpu-on fzwgpu-bon; do prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
for be in wgpu cuda wgpu; do for x in fzwgpu fzwgpu-on fzwgpu-con fzwgpu-don fzwgpu-eon; do
  bench_line r48b 470 $x $be "--size 1G --fields smooth" 2d szx
  [ $x = fzwgpu-eon ] && [ $be = cuda ] && for y in fzwgpu-on fzwgpu-bon; do left 440 && prof "$y cuda 2-D szx" $y --backend cuda --size 1G --fields smooth --presets szx; done
done; done
VAL_LEFT=540 val r48b-eon /tmp/ct/fzwgpu-eon szx 40
echo "total $(( $(date +%s) - T0 )) s"

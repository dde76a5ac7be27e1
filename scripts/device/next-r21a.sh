#!/bin/bash
# Round 21, call 1 (prepared in round 20, not yet run). Kit:
#   KIT_B=scripts/device/patches/szx-compact-vec4.patch \
#   KIT_C=scripts/device/patches/range-final-unrolled.patch KIT_D=c1da48f bash scripts/device/kit.sh
#   (KIT_D and the szx_encode8 items added in round 21: main now has szx_encode8 with
#   one set of codes per lane, 2ccdc07; NVRTC sm_90 registers 80 -> 64 uncapped, the
#   capped build's 56-byte spill stack gone; fzwgpu-d, c1da48f, is main before it)
#   fzwgpu-b: szx_compact walks the payload a 16-byte piece at a time: one block search
#     per piece (for its first word in the group's run), each later word in the same
#     block or the next (every szx block has at least one word), whole vec4 stores
#     inside the run and component stores for the two pieces shared with the
#     neighbouring groups; the payload bound in whole pieces. Lavapipe: szx_compact
#     79.6 -> 55.9 ms per 64 Mi-value replay (FZWGPU_PROFILE, two runs each), szx
#     compression 0.252 -> 0.257 GB/s; the kernel, stages, chunks, fusion, real-data,
#     adversarial, golden tests pass (FZWGPU_SZX_TEAM8 on and off); five mutations: the
#     three that change results fail the kernel test, two are equivalent. NVRTC sm_90:
#     448 SASS instructions, 30 registers (main: 272). Round 20's profile: szx_compact
#     0.21 ms of 2-D szx's 1.73 through Vulkan.
#   fzwgpu-c: szx_range_final folds eight parts per step written out (main: four per
#     step in an inner loop that naga bounds with a counter); round 20's profile: 0.033
#     ms per 1 GiB range (one workgroup over 16384 parts), in every NOA compression.
#     The kernel test puts the extremes at every place of a step (main passes it too);
#     four mutations fail it.
# 1. vkstats of main's chain kernels after round 20's written-out steps (chain_decode
#    had 95 registers with naga's loop counters, 72 without, in round 20) and of
#    szx_encode8 (80 registers through Vulkan in round 20)
# 2. A/B fzwgpu-d (before szx_encode8's change), main, fzwgpu-b, fzwgpu-c on szx: 2-D
#    smooth and CESM TS tiled 1 GiB (setup.sh's FZWGPU_DATA_DIR) through both backends,
#    1-D 1 GiB through Vulkan, then the 2-D field through Vulkan once more (the time
#    guards may cut the last steps); a per-dispatch profile of 2-D szx through
#    fzwgpu-c (Vulkan)
source .device/setup.sh
timeout 60 /tmp/ct/vkstats szx_encode8 chain_encode chain_decode chain_decode_ragged szx_compact chain_compact szx_range_final > $OUT/r21a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r21a-vkstats.txt | cut -c1-120
ab() { # round backend fields-args label
  for bin in fzwgpu-d fzwgpu fzwgpu-b fzwgpu-c; do
    left ${LEFT:-480} || break
    timeout 60 /tmp/ct/$bin bench --backend $2 $3 --reps 3 --presets szx --json $OUT/r21a-ab-$2.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $bin $2 $4" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
for be in wgpu cuda; do
  ab 1 $be "--size 1G --fields smooth,tiled" "2d,tiled"
done
ab 1 wgpu "--dims 268435456" 1d
LEFT=480 ab 2 wgpu "--size 1G --fields smooth" 2d
left 500 && FZWGPU_PROFILE=1 timeout 30 /tmp/ct/fzwgpu-c bench --backend wgpu --size 1G --fields smooth --reps 1 --warmup 0 --replays 5 --presets szx 2>&1 | grep -E "^szx| x5 " | grep -E "^szx|range|compact" | sort | uniq -c | sort -rn | head -8
# the first per-dispatch profile through CUDA (FZWGPU_PROFILE with CUDA events, new in
# round 20): main on 2-D szx and 1-D szp_composed; python3 scripts/device/profile-summary.py
for f in "--size 1G --fields smooth|szx|2d" "--dims 268435456|szp_composed|1d"; do
  left 530 || break
  a=${f%%|*}; r=${f#*|}; p=${r%|*}; l=${r#*|}
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/fzwgpu bench --backend cuda $a --reps 1 --warmup 0 --replays 5 --presets $p > $OUT/r21a-prof-cuda-$l.log 2>&1
  echo "cuda profile $l: $(grep -c '^profile: ' $OUT/r21a-prof-cuda-$l.log) lines"; grep -E " x5 " $OUT/r21a-prof-cuda-$l.log | tail -6
done
# (round 22) szx_encode8's workgroup cap beyond round 12's sweep (528-8192: more was
# better, 8192 ~ 4096): one block per team (0, no grid-stride walk) and 16384, 2-D,
# while time is left
for g in 0 16384; do
  for be in wgpu cuda; do
    left 570 || break 2
    FZWGPU_ENCODE_GROUPS=$g timeout 40 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --presets szx 2>&1 | grep -E "^szx" | awk -v t="$be 2-D groups=$g" '{print t, "compress", $3}'
  done
done
echo "total $(( $(date +%s) - T0 )) s"

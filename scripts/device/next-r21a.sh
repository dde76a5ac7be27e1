#!/bin/bash
# Round 21, call 1 (prepared in round 20, not yet run). Kit:
#   KIT_B=scripts/device/patches/szx-compact-vec4.patch bash scripts/device/kit.sh
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
# 1. vkstats of main's chain kernels after round 20's written-out steps (chain_decode
#    had 95 registers with naga's loop counters, 72 without, in round 20)
# 2. validation.sh of szx through fzwgpu-b on both backends (byte-for-byte against the
#    cpu backend, f32 and f64, 12 real fields, 3 bounds)
# 3. A/B main against fzwgpu-b: 2-D smooth 1 GiB and CESM TS tiled 1 GiB (setup.sh's
#    FZWGPU_DATA_DIR), 1-D 1 GiB; through both backends, then Vulkan once more
source .device/setup.sh
timeout 60 /tmp/ct/vkstats chain_encode chain_decode chain_decode_ragged szx_compact chain_compact > $OUT/r21a-vkstats.txt 2>&1; echo "vkstats rc=$?"
grep -E "robust \[|no-loop" $OUT/r21a-vkstats.txt | cut -c1-120
VAL_LEFT=200 val r21a-b /tmp/ct/fzwgpu-b szx 100
ab() { # round backend
  for bin in fzwgpu fzwgpu-b; do
    left 540 || break
    timeout 60 /tmp/ct/$bin bench --backend $2 --size 1G --fields smooth,tiled --reps 3 --presets szx --json $OUT/r21a-ab-$2.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $bin $2 2d,tiled" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
    timeout 40 /tmp/ct/$bin bench --backend $2 --dims 268435456 --reps 3 --presets szx --json $OUT/r21a-ab-$2.jsonl 2>&1 | grep -E "^szx" | awk -v t="$1 $bin $2 1d" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
  done
}
ab 1 wgpu
ab 1 cuda
ab 2 wgpu
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 12, call 1 (prepared 2026-12-03, run 2026-12-04 at 95ba6f8, 346 s; log
# docs/results/h200-r12a.log; szx_encode8 is the default since): szx_encode8 (teams of 8 lanes,
# four float32 blocks of 128 per 32-lane subgroup; FZWGPU_SZX_TEAM8=on) against
# szx_encode, same binary (kit of main: bash scripts/device/kit.sh):
#  1. the kernel twins through both backends (tests/kernels.rs runs szx_encode8 beside
#     szx_encode on every float32 case with blocks of 128: the only place where four
#     teams share a subgroup, which lavapipe's 8-lane subgroups never do);
#  2. szx 2-D (1 GiB) twice and 1-D once, CESM TS tiled to 256 MiB once, off / on
#     alternating, through CUDA and Vulkan (kernel GB/s; the copy line now has the
#     readback into touched memory too);
#  3. validation of szx with FZWGPU_SZX_TEAM8=on through both backends (archives and
#     reconstructions against the cpu backend: every real field, 3 bounds, f32 and f64);
#  4. the copy probe into touched memory and decompress_into end to end (both backends);
#  5. ncu of both encoders through CUDA (256 MiB 2-D): instructions, registers, time.
# If it wins and validates: make it the default (src/stages/szx.rs `encoder`), run suite.sh.
source .device/setup.sh
for be in cuda wgpu; do
  FZWGPU_TEST_BACKEND=$be timeout 120 /tmp/ct/kernels --test-threads 8 szx 2>&1 | grep -E "^test result|panicked|differs" | head -3 | sed "s/^/twins $be: /"
done
ab() { # backend field-args label
  for t in off on; do left 330 || return 0
    FZWGPU_SZX_TEAM8=$t timeout 60 /tmp/ct/fzwgpu bench --backend $1 $2 --reps 3 --presets szx --json $OUT/r12a-$t-$1.jsonl 2>&1 | grep -E "^copy|^szx" | awk -v t="$1 $3 team8=$t" '/^copy/ {c=$0; next} {print t, "compress", $3, "decompress", $6, "ratio", $2}'
  done
}
for be in cuda wgpu; do
  ab $be "--size 1G --fields smooth" 2-D; ab $be "--size 1G --fields smooth" 2-D; ab $be "--dims 268435456" 1-D; ab $be "--size 256M --fields tiled" tiled
done
# szx_encode8 takes 80 registers for sm_90 (3 workgroups of 256 per SM): capped at 64
# (FZWGPU_CUDA_MINBLOCKS=4, every kernel; diagnostic) for occupancy against spills
if left 380; then
  FZWGPU_SZX_TEAM8=on FZWGPU_CUDA_MINBLOCKS=4 timeout 60 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --presets szx 2>&1 | grep -E "^szx" | awk '{print "cuda 2-D team8=on minblocks=4 compress", $3, "decompress", $6}'
fi
# szx_encode8 has one loop (the rounds) where szx_encode has many: what naga's loop
# counters still cost it through Vulkan (diagnostic; noloop changed float64 szx_encode
# results in round 10, szx_encode8 is float32 only), and its twins under noloop
if left 400; then
  FZWGPU_SZX_TEAM8=on FZWGPU_SHADER_CHECKS=noloop timeout 60 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --presets szx 2>&1 | grep -E "^szx" | awk '{print "wgpu 2-D team8=on noloop compress", $3, "decompress", $6}'
  FZWGPU_TEST_BACKEND=wgpu FZWGPU_SHADER_CHECKS=noloop timeout 60 /tmp/ct/kernels --test-threads 8 szx 2>&1 | grep -E "^test result|differs" | head -3 | sed "s/^/twins wgpu noloop (float64 szx_encode known to differ): /"
fi
for be in cuda wgpu; do left 450 || break
  FZWGPU_SZX_TEAM8=on B=/tmp/ct/fzwgpu EXTRA="--backend $be" PRESETS="szx" timeout 75 bash .device/validation.sh > $OUT/r12a-val-$be.log 2>&1
  echo "validation team8 $be: $(grep -cE '^szx' $OUT/r12a-val-$be.log) passed, $(grep -c '^FAIL' $OUT/r12a-val-$be.log) failed, $(grep -c ALL_DONE $OUT/r12a-val-$be.log) done"
  grep '^FAIL' $OUT/r12a-val-$be.log | cut -c1-160 | head -3
done
# 4. the copy probe into touched memory and decompress_into (bench's 'dec into', '%into')
for be in cuda wgpu; do left 500 || break
  timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed --json $OUT/r12a-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-220 | sed "s/^/e2e $be: /"
done
for t in off on; do left 540 || break
  FZWGPU_SZX_TEAM8=$t timeout 30 /usr/local/cuda/bin/ncu -k regex:szx_encode -c 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active /tmp/ct/fzwgpu bench --backend cuda --size 256M --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx 2>&1 | grep -E "szx_encode|inst_exec|duration|registers|warps_active" | sed "s/^/ncu team8=$t: /"
done
echo "total $(( $(date +%s) - T0 )) s"
save_cache

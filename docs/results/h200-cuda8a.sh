#!/bin/bash
# szx compression A/B on the H200: "old" = the build at 080dcee, "new" = szx_encode with
# float32 min/max from the keys four at a time and the packing span tightened to the
# lanes that reach a word (one piece per lane when the lane's codes fit a word), and
# szx_compact word-parallel (one workgroup per 256 blocks). Both backends, 2-D and 1-D,
# alternating; then per-kernel profiles; the kernel twins on the new build first.
source .device/cuda-setup.sh
O=/tmp/ct/fzwgpu-cuda; N=/tmp/ct/fzwgpu-cuda-new
for be in cuda wgpu; do
  echo "== test kernels ($be)"
  [ $be = cuda ] && export FZWGPU_TEST_BACKEND=cuda || unset FZWGPU_TEST_BACKEND
  timeout 90 /tmp/ct/kernels --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | grep -v " ok$" | head -8
done
unset FZWGPU_TEST_BACKEND
for r in 1 2; do for be in cuda wgpu; do for v in old new; do
  B=$O; [ $v = new ] && B=$N
  timeout 60 $B bench --backend $be --size 1G --reps 3 --presets szx --json $OUT/c8a-szx-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/r$r 2-D $be $v /"
done; done; done
for be in cuda wgpu; do for v in old new; do
  B=$O; [ $v = new ] && B=$N
  timeout 60 $B bench --backend $be --dims 268435456 --reps 3 --presets szx --json $OUT/c8a-szx-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/1-D $be $v /"
done; done
for v in old new; do
  B=$O; [ $v = new ] && B=$N
  FZWGPU_PROFILE=1 timeout 60 $B bench --backend wgpu --size 1G --reps 1 --presets szx 2>&1 | grep -E "profile: +szx_|profile: +scan" | tail -14 | sed "s/^/profile $v /"
done

#!/bin/bash
# szx compression A/B on the H200: "old" = the build at 080dcee, "new" (82d9102) = szx_encode with
# float32 min/max from the keys four at a time and the packing span tightened to the
# lanes that reach a word (one piece per lane when the lane's codes fit a word), and
# szx_compact word-parallel (one workgroup per 256 blocks). Both backends, 2-D and 1-D,
# alternating; "new2" = new + szx_encode deciding constant blocks first (no codes for
# them). Then per-kernel profiles; the kernel twins on the new2 build first.
source .device/cuda-setup.sh
O=/tmp/ct/fzwgpu-cuda; N=/tmp/ct/fzwgpu-cuda-new2
for be in cuda wgpu; do
  echo "== test kernels ($be)"
  [ $be = cuda ] && export FZWGPU_TEST_BACKEND=cuda || unset FZWGPU_TEST_BACKEND
  timeout 90 /tmp/ct/kernels --test-threads 2 2>&1 | grep -E "^test |test result|panicked" | grep -v " ok$" | head -8
done
unset FZWGPU_TEST_BACKEND
for be in cuda wgpu; do for v in old new new2; do
  B=/tmp/ct/fzwgpu-cuda-$v; [ $v = old ] && B=$O
  timeout 60 $B bench --backend $be --size 1G --reps 3 --presets szx --json $OUT/c8a-szx-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/2-D $be $v /"
done; done
for be in cuda wgpu; do for v in old new new2; do
  B=/tmp/ct/fzwgpu-cuda-$v; [ $v = old ] && B=$O
  timeout 60 $B bench --backend $be --dims 268435456 --reps 3 --presets szx --json $OUT/c8a-szx-$v.jsonl 2>&1 | grep -E "^sz" | sed "s/^/1-D $be $v /"
done; done
for v in old new2; do
  B=$O; [ $v = new2 ] && B=$N
  FZWGPU_PROFILE=1 timeout 60 $B bench --backend wgpu --size 1G --reps 1 --presets szx 2>&1 | grep -E "profile: +szx_|profile: +scan" | tail -14 | sed "s/^/profile $v /"
done
# occupancy: szx_encode has 46 registers (5 workgroups of 256 per SM); capped through
# __launch_bounds__(256, 6) -> 40 registers (20 bytes of spill loads), (256, 8) -> 32 (96)
for mb in 6 8; do
  FZWGPU_CUDA_MINBLOCKS=$mb timeout 60 $N bench --backend cuda --size 1G --reps 3 --presets szx 2>&1 | grep -E "^sz" | sed "s/^/2-D cuda new2 minblocks=$mb /"
done

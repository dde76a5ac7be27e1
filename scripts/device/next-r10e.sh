#!/bin/bash
# Round 10, call 5: team predicates through subgroupMin/Max (no subgroupAnd/Or) under
# FZWGPU_SHADER_CHECKS=noloop: kernel, fused-chain, adversarial and real-data tests
# through Vulkan (and the kernel twins through CUDA), szx validation of every real
# field in f32 and f64 under noloop, then each preset alone in a process, full against
# noloop (batched replays, the default since round 10).
source .device/setup.sh
B=/tmp/ct/fzwgpu
for m in noloop full; do for t in kernels fusion adversarial real_data; do
  echo "== wgpu $m $t: $(FZWGPU_SHADER_CHECKS=$m FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/$t --test-threads 8 2>&1 | grep -E 'test result|FAILED|panicked' | head -4 | tr '\n' ' ')"
done; done
echo "== cuda kernels: $(FZWGPU_TEST_BACKEND=cuda timeout 60 /tmp/ct/kernels --test-threads 8 2>&1 | grep -E 'test result|FAILED' | tr '\n' ' ')"
FZWGPU_SHADER_CHECKS=noloop PRESETS=szx timeout 120 bash .device/validation.sh > $OUT/r10e-val-noloop.log 2>&1
echo "noloop szx validation: $(grep -cE '^sz' $OUT/r10e-val-noloop.log) passed, $(grep -c '^FAIL' $OUT/r10e-val-noloop.log) failed"
grep '^FAIL' $OUT/r10e-val-noloop.log | cut -c1-160 | head -3
for p in szx szp_composed szp_centered; do for m in full noloop; do left 290 || break
  FZWGPU_SHADER_CHECKS=$m timeout 40 $B bench --backend wgpu --size 1G --reps 3 --presets $p --json $OUT/r10e-bench.jsonl 2>&1 | grep -E "^sz" | awk -v m=$m '{print "wgpu", m, $1, "compress", $3, "decompress", $6}'
done; done
for m in full noloop; do left 290 || break
  FZWGPU_SHADER_CHECKS=$m timeout 45 $B bench --backend wgpu --dims 268435456 --reps 3 --presets szx,szp_composed --json $OUT/r10e-bench1d.jsonl 2>&1 | grep -E "^sz" | awk -v m=$m '{print "wgpu 1-D", m, $1, "compress", $3, "decompress", $6}'
done
echo "total $(( $(date +%s) - T0 )) s"

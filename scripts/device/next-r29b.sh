#!/bin/bash
# Round 29, second call (kit: main after ae1dee2, szx_encode8 without its walk).
# 1. hostmem-probe: whether a host scan of a 1 GiB field's range keeps up with its
#    upload (PERFORMANCE.md Next steps 5; the upload's GB/s is bench's "copy" line)
# 2. main's szx kernel twins and adversarial tests through both backends (the walk's
#    removal: its twin now covers only the dispatched blocks)
# 3. FZWGPU_WG_ZERO_INIT=on against off (r29a ran only on, through Vulkan, before its
#    limit: szx 629.9 on against main's 629.3 off): 2-D szx and szp_composed, both
#    backends (the CUDA translation's zeroing loop went in round 28 too)
# 4. the faults binary, which hung through Vulkan on the H100 in r28c's suite (none of
#    its four tests finished in 120 s; passed in 19 s in r28a): again and again with 8
#    test threads as the suite runs it, through CUDA, then each test alone, with every
#    thread's user stack on a hang (eu-stack from the kit)
source .device/setup.sh
timeout 60 /tmp/ct/hostmem-probe 1024 2>&1 | tail -4
for be in cuda wgpu; do
  for t in "kernels szx" "adversarial szx"; do
    s=$(date +%s); r=$(FZWGPU_TEST_BACKEND=$be timeout 90 /tmp/ct/$t --test-threads 8 2>&1)
    echo "$be $t: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
    echo "$r" | grep -E "FAILED|panicked" | head -5
  done
done
for be in wgpu cuda; do for zi in off on; do
  left 260 || break
  FZWGPU_WG_ZERO_INIT=$zi timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --presets szx,szp_composed --json $OUT/r29b-zi-$be.jsonl 2>&1 | grep -E "^sz" | awk -v t="zero-init=$zi $be 2d" '{print t, $1, "compress", $3, "decompress", $8}'
done; done
run() { # label backend args...
  local l=$1 be=$2 s=$(date +%s) rc; shift 2
  watched 60 /tmp/f.log env FZWGPU_TEST_BACKEND=$be /tmp/ct/faults "$@"; rc=$?
  echo "$l $be: rc=$rc $(grep -E '^test result' /tmp/f.log | sed 's/finished in.*//') $(( $(date +%s) - s )) s"
  [ $rc = 124 ] && cp /tmp/f.log $OUT/r29b-hang-$l-$be.log
  return 0
}
for i in $(seq 1 8); do left 400 || break; run "x8-$i" wgpu --test-threads 8; done
for i in 1 2; do left 440 || break; run "cuda-x8-$i" cuda --test-threads 8; done
for t in allocation_failures a_timed_out a_lost_device a_field_larger; do
  left 500 || break; run "$t" wgpu "$t"
done
echo "total $(( $(date +%s) - T0 )) s"

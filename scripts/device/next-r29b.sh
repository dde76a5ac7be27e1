#!/bin/bash
# Prepared in round 28 (not yet run). The faults test binary hung through Vulkan on
# the H100 in r28c's suite (h100-r28c.log: none of its four tests finished in 120 s; two
# test threads in kernel PI-mutex waits, rt_mutex_schedule, the rest on futexes), where
# it had passed in 19 s in r28a; round 13 saw it hang through CUDA, in the suite only.
# Runs it again and again as the suite does (8 test threads), then each test alone,
# through Vulkan and CUDA, with every thread's user stack on a hang (eu-stack from the
# kit). Kit: main (bash scripts/device/kit.sh).
# First, for PERFORMANCE.md's Next steps 5: whether a host scan of a 1 GiB field's
# range keeps up with its upload (hostmem-probe's min/max lines; the upload's GB/s is
# bench's "copy: host->device").
source .device/setup.sh
timeout 60 /tmp/ct/hostmem-probe 1024 2>&1 | tail -4
run() { # label backend args...
  local l=$1 be=$2 s=$(date +%s) rc; shift 2
  watched 60 /tmp/f.log env FZWGPU_TEST_BACKEND=$be /tmp/ct/faults "$@"; rc=$?
  echo "$l $be: rc=$rc $(grep -E '^test result' /tmp/f.log | sed 's/finished in.*//') $(( $(date +%s) - s )) s"
  [ $rc = 124 ] && cp /tmp/f.log $OUT/r29b-hang-$l-$be.log
  return 0
}
for i in $(seq 1 10); do left 260 || break; run "x8-$i" wgpu --test-threads 8; done
for i in 1 2 3; do left 330 || break; run "cuda-x8-$i" cuda --test-threads 8; done
for t in allocation_failures a_timed_out a_lost_device a_field_larger; do
  for i in 1 2; do left 480 || break; run "$t-$i" wgpu "$t"; done
done
echo "total $(( $(date +%s) - T0 )) s"

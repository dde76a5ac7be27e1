#!/bin/bash
# Round 29, third call (kit: main with DEVICE_LIFE, src/backend/wgpu/mod.rs): the faults
# binary with 8 test threads through Vulkan, as r29b ran it (hung in 2 of 8 runs there:
# vkDestroyDevice of the allocation sweep's backend beside other threads' submits and
# pipeline creation, all in the NVIDIA driver), now that creating and destroying a
# device holds a process-wide lock exclusively and every other call holds it shared.
# Then the concurrency binary (backends opened and dropped beside long jobs).
source .device/setup.sh
run() { # label backend binary args...
  local l=$1 be=$2 b=$3 s=$(date +%s) rc; shift 3
  watched 60 /tmp/f.log env FZWGPU_TEST_BACKEND=$be /tmp/ct/$b "$@"; rc=$?
  echo "$l $be $b: rc=$rc $(grep -E '^test result' /tmp/f.log | sed 's/finished in.*//') $(( $(date +%s) - s )) s"
  [ $rc = 124 ] && cp /tmp/f.log $OUT/r29c-hang-$l-$be.log
  return 0
}
for i in $(seq 1 16); do left 250 || break; run "x8-$i" wgpu faults --test-threads 8; done
for i in 1 2; do left 280 || break; run "conc-$i" wgpu concurrency --test-threads 8; done
echo "total $(( $(date +%s) - T0 )) s"

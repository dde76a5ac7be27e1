#!/bin/bash
# The faults binary through CUDA (FZWGPU_TEST_BACKEND=cuda) one test at a time (or
# whole: DIAG_TESTS=all), in a loop, to catch the intermittent hang (killed at 120 s in
# the suite in r11b and r13c, 18-20 s otherwise; 0 of 25 runs hung here in r13d/e). On
# a hang `watched` (setup.sh) prints the threads' states.
source .device/setup.sh
B=/tmp/ct/faults
for i in 1 2 3 4 5; do
  for t in ${DIAG_TESTS:-allocation_failures_anywhere_are_typed_errors a_timed_out_wait_is_an_error_and_the_backend_recovers a_lost_device_is_a_typed_error a_field_larger_than_device_memory_streams}; do
    left ${DIAG_LEFT:-150} || break 2
    s=$(date +%s)
    # DIAG_TESTS=all: the whole binary with 8 test threads, as suite.sh runs it
    if [ "$t" = all ]; then a="--test-threads 8"; else a="--exact $t --test-threads 1"; fi
    watched 35 /tmp/f.log env FZWGPU_TEST_BACKEND=cuda $B $a; rc=$?
    echo "run $i $t rc=$rc $(( $(date +%s) - s )) s $(grep -E '^test result' /tmp/f.log | cut -c1-40)"
  done
done
echo "total $(( $(date +%s) - T0 )) s"

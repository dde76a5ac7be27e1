#!/bin/bash
# Round 11, call 3: the faults tests, which in r11b's suite (kit 2f6df2c) hung through
# CUDA (120 s, no result; 18-19 s in rounds 9 and 10) and failed once through wgpu (the
# zero wait limit never timed out on the 0.8 MB field), with FZWGPU_HUGEPAGES off (now
# the default) and on, one test at a time; then the whole suite at the kit's commit.
source .device/setup.sh
echo "THP: enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag=$(cat /sys/kernel/mm/transparent_hugepage/defrag)"
for be in cuda wgpu; do for hp in off on; do
  s=$(date +%s)
  FZWGPU_TEST_BACKEND=$be FZWGPU_HUGEPAGES=$hp timeout 45 /tmp/ct/faults --test-threads 1 2>&1 | grep -E "^test |^test result|panicked" | tr '\n' ' ' | sed "s/^/faults $be hugepages=$hp: /"
  echo " [rc ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s]"
done; done
SUITE_LEFT=$(( 540 - ($(date +%s) - T0) )) bash .device/suite.sh > $OUT/r11c-suite.log 2>&1
echo "suite: $(grep -c 'test result: ok' $OUT/r11c-suite.log) ok result lines, $(grep -cE 'FAILED|panicked' $OUT/r11c-suite.log) failure lines, $(grep -c '^skip' $OUT/r11c-suite.log) skipped"
grep -E "FAILED|panicked|^skip|fail-lines 1[0-9][0-9] s" $OUT/r11c-suite.log | head -8
echo "total $(( $(date +%s) - T0 )) s"

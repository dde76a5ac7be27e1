#!/bin/bash
# Round 11, call 2 (run 2026-12-03; stopped at 600 s in the suite): host memory on the device
# machine, then the whole suite at the kit's commit.
#  1. hostmem-probe: copies into fresh, fresh + MADV_HUGEPAGE, and touched memory (134
#     MiB and 1 GiB, 1 thread and all): whether page faults bound the device-to-host
#     figures (8-13 GB/s through both backends in round 10);
#  2. FZWGPU_HUGEPAGES=on (the default in rounds 10-11; opt-in since) against off, alternating, end to
#     end through both backends (szx, szp_composed, 2-D 1 GiB, 3 repetitions, 1 replay:
#     the e2e columns and the copy figures are what matter here);
#  3. suite.sh.
source .device/setup.sh
B=/tmp/ct/fzwgpu
/tmp/ct/hostmem-probe 134 1024
for r in 1 2; do for be in wgpu cuda; do for h in on off; do left 200 || break
  FZWGPU_HUGEPAGES=$h timeout 60 $B bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx,szp_composed --json $OUT/r11b-hp-$h-$be.jsonl 2>&1 | grep -E "^copy|^sz" | awk -v t="$be hugepages=$h" '/^copy/ {print t, $0; next} {print t, $1, "comp e2e", $4, $5, "dec e2e", $7, $8}'
done; done; done
bash .device/suite.sh > $OUT/r11b-suite.log 2>&1
echo "suite: $(grep -c 'test result: ok' $OUT/r11b-suite.log) ok result lines, $(grep -cE 'FAILED|panicked' $OUT/r11b-suite.log) failure lines"
grep -E "FAILED|panicked" $OUT/r11b-suite.log | head -5
echo "total $(( $(date +%s) - T0 )) s"

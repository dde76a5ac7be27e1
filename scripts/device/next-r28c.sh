#!/bin/bash
# Round 28, call c: the whole suite again on main after 315f32e, which mended the tests
# that failed only on a real GPU in r28a (h100-r28a.log: cuda lib past the 120 s limit,
# cuda pipeline's pre-heat test, cuda faults' API assertion, wgpu cli's default
# pre-heat); this time with the FZWGPU_SCAN=lookback pass, and the whole output of any
# binary that fails kept in $OUT. Kit: main (bash scripts/device/kit.sh).
source .device/setup.sh
SUITE_LEFT=430 bash .device/suite.sh 2>&1
grep -h "compiles in" $OUT/suite-* 2>/dev/null | head -3

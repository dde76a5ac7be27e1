#!/bin/bash
# Round 10, call 4 (run 2026-12-03 at 7a00b54; logs docs/results/h200-r10d-*): the noloop
# diagnostic. Needs .device/kdiag.tar.xz, built by hand: the `kernels` test binary
# (--features cuda, stripped) of this tree with patches/noloop-diag.patch applied
# (kdiag-base), and three more with hand-written loop counters added to
# shaders/szx/encode.wgsl on top (kdiag-all: every loop; kdiag-outer: the block walk;
# kdiag-inner: the rest): before each `for (...) {` / `while (...) {` line a
# `var lgN = ~P.nblocks;`, and as the loop's first statements
# `if (lgN == 0u) { break; } lgN -= 1u;`. Tarred with xz (dict 192MiB).
source .device/setup.sh
tar xJf .device/kdiag.tar.xz -C /tmp/ct
for v in base all outer inner; do for m in noloop full; do
  [ $v != base ] && [ $m = full ] && continue
  FZWGPU_SHADER_CHECKS=$m FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/kdiag-$v noloop_diag --nocapture --test-threads 1 > $OUT/r10d-diag-$v-$m.log 2>&1
  echo "== $v $m: $(grep -E 'blocks differ' $OUT/r10d-diag-$v-$m.log | tr '\n' ' ')"
done; done
grep -E "f64=true groups=26 b= [0-3] |f64=false groups=26 b= [0-3] " $OUT/r10d-diag-base-noloop.log
echo "total $(( $(date +%s) - T0 )) s"

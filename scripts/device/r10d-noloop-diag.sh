source .device/setup.sh
tar xJf .device/kdiag.tar.xz -C /tmp/ct
for v in base all outer inner; do for m in noloop full; do
  [ $v != base ] && [ $m = full ] && continue
  FZWGPU_SHADER_CHECKS=$m FZWGPU_TEST_BACKEND=wgpu timeout 60 /tmp/ct/kdiag-$v noloop_diag --nocapture --test-threads 1 > $OUT/r10d-diag-$v-$m.log 2>&1
  echo "== $v $m: $(grep -E 'blocks differ' $OUT/r10d-diag-$v-$m.log | tr '\n' ' ')"
done; done
grep -E "f64=true groups=26 b= [0-3] |f64=false groups=26 b= [0-3] " $OUT/r10d-diag-base-noloop.log
echo "total $(( $(date +%s) - T0 )) s"

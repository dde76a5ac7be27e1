#!/bin/bash
# Range/scan constant-component build (71539e6): kernel twins on the H200 and szx/
# szp_composed archives compared with the cpu backend on three fields, f32 and f64.
source .device/vulkan-env.sh
B=.device/fzwgpu
.device/kernels-test --test-threads 1 range scan szx_kernels_match_twins_random 2>&1 | grep -E "differs|test result|panicked"
for f in cesm_camfv_TS_10x192x288:288x192x10 sperr_999x999:999x999 eraint_z_2x3x241x480:480x241x6; do n=${f%%:*}; d=${f##*:}
  for p in szx szp_composed; do for w in "" "--widen"; do
    $B eval -i .device/data/$n.f32 --dims $d --preset $p --eb 1e-3 --mode noa --compare-cpu $w >/dev/null 2>&1 && echo "ok $p $n ${w:-f32}" || echo "FAIL $p $n $w"
  done; done
done
echo DONE

#!/bin/bash
# H200 validation: every preset ($PRESETS) on every real field at three bounds (f32 and
# widened to f64) through binary $B with $EXTRA (e.g. --backend cuda), each compared
# byte-for-byte with the cpu backend (eval --compare-cpu). SHAPE=1d flattens every field
# to 1-D (round 22: chain_encode_1d / chain_decode_1d).
B=${B:-/tmp/ct/fzwgpu}; D=${FZWGPU_DATA_DIR:-/tmp/data}
fields="cesm_camfv_TS_10x192x288:288x192x10 cesm_camfv_PRECT_10x192x288:288x192x10 cesm_camse_TS_12x48602:48602x12 cesm_camfv_T_fpzip_month0_30x192x288:288x192x30 sperr_vorticity_512x512:512x512 sperr_vorticity_41x128x128:128x128x41 sperr_wmag_91x91x91:91x91x91 sperr_999x999:999x999 hadcm3_A1B_tas_240x37x49:49x37x240 um_theta_15x100x100:100x100x15 eraint_z_2x3x241x480:480x241x6 sz_testfloat_128x8x8:8x8x128"
fail=0
for preset in ${PRESETS:-szx szp_composed szp_centered}; do
for f in $fields; do n=${f%%:*}; d=${f##*:}
  [ "${SHAPE:-}" = 1d ] && d=$(( $(echo $d | sed 's/x/*/g') ))
  for rel in 1e-2 1e-3 1e-4; do
    for w in "" "--widen"; do
      out=$($B eval $EXTRA -i $D/$n.f32 --dims $d --preset $preset --eb $rel --mode noa --json --repeat 2 --compare-cpu $w 2>&1) || { echo "FAIL $preset $n $rel $w: $out"; fail=1; continue; }
      echo "$preset $n rel=$rel ${w:-f32} $(echo "$out" | tail -1)"
    done
  done
done
done
echo "ALL_DONE fail=$fail"

#!/bin/bash
# H200: the sperr_gpu preset on every field at four bounds (float32 and widened to
# float64), each compared byte-for-byte with the cpu backend (archive and
# reconstruction) and checked against the bound; then throughput figures.
source .device/vulkan-env.sh
B=.device/fzwgpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
fields="cesm_camfv_TS_10x192x288:288x192x10 cesm_camfv_PRECT_10x192x288:288x192x10 cesm_camse_TS_12x48602:48602x12 cesm_camfv_T_fpzip_month0_30x192x288:288x192x30 sperr_vorticity_512x512:512x512 sperr_vorticity_41x128x128:128x128x41 sperr_wmag_91x91x91:91x91x91 sperr_999x999:999x999 hadcm3_A1B_tas_240x37x49:49x37x240 um_theta_15x100x100:100x100x15 eraint_z_2x3x241x480:480x241x6 sz_testfloat_128x8x8:8x8x128"
fail=0; runs=0
for f in $fields; do n=${f%%:*}; d=${f##*:}
  for rel in 1e-2 1e-3 1e-4 1e-5; do
    for w in "" "--widen"; do
      runs=$((runs+1))
      out=$($B eval -i .device/data/$n.f32 --dims $d --preset sperr_gpu --eb $rel --mode noa --json --repeat 1 --compare-cpu $w 2>&1) || { echo "FAIL sperr_gpu $n $rel $w: $out"; fail=$((fail+1)); continue; }
      echo "sperr_gpu $n rel=$rel ${w:-f32} $(echo "$out" | tail -1)"
    done
  done
done
echo "VALIDATION runs=$runs fail=$fail"
if [ -z "$NO_BENCH" ]; then
  $B bench --presets sperr_gpu,szx,szp_centered --size 64M --eb 1e-3 --mode noa --reps 3 --json $OUT/bench.jsonl 2>&1
  $B bench -i .device/data/cesm_camfv_TS_10x192x288.f32 --dims 288x192x10 --tile --size 256M --presets szx,szp_composed,szp_centered --eb 1e-3 --mode noa --reps 3 --json $OUT/bench.jsonl 2>&1
fi
echo "ALL_DONE fail=$fail"

#!/bin/bash
# Round 22 validation through lavapipe: both chain presets on every real field at three
# bounds (float32 and widened to float64), each compared byte for byte with the cpu
# backend (eval --compare-cpu), at the fields' own dims (2-D/3-D forms: flat units,
# 2-D and 3-D walks) and flattened to 1-D (chain_encode_1d / chain_decode_1d). Run from
# the repository root after `cargo build --release`, with
# XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan
B=${B:-target/release/fzwgpu}; D=../shared/data
fields="cesm_camfv_TS_10x192x288:288x192x10 cesm_camfv_PRECT_10x192x288:288x192x10 cesm_camse_TS_12x48602:48602x12 cesm_camfv_T_fpzip_month0_30x192x288:288x192x30 sperr_vorticity_512x512:512x512 sperr_vorticity_41x128x128:128x128x41 sperr_wmag_91x91x91:91x91x91 sperr_999x999:999x999 hadcm3_A1B_tas_240x37x49:49x37x240 um_theta_15x100x100:100x100x15 eraint_z_2x3x241x480:480x241x6 sz_testfloat_128x8x8:8x8x128"
fail=0; runs=0
for shape in own 1d; do
for preset in szp_composed szp_centered; do
for f in $fields; do n=${f%%:*}; d=${f##*:}
  [ $shape = 1d ] && d=$(echo $d | tr x '*' | bc)
  for rel in 1e-2 1e-3 1e-4; do
    for w in "" "--widen"; do
      runs=$((runs + 1))
      out=$($B eval --backend wgpu -i $D/$n.f32 --dims $d --preset $preset --eb $rel --mode noa --json --repeat 2 --compare-cpu $w 2>&1) || { echo "FAIL $shape $preset $n $rel $w: $out"; fail=$((fail + 1)); continue; }
      echo "$shape $preset $n dims=$d rel=$rel ${w:-f32} $(echo "$out" | tail -1 | python3 -c 'import json, sys; d = json.loads(sys.stdin.read()); print("bound_ok", d["bound_ok"], "ratio %.3f" % d["ratio"], " ".join(n.split("=", 1)[1] for n in d["notes"] if n.startswith("pipeline:fused=") or n.startswith("pipeline:staged=")))')"
    done
  done
done
done
done
echo "ALL_DONE runs=$runs fail=$fail"

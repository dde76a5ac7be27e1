#!/bin/bash
# Round 23 validation through lavapipe: both chain presets on every 3-D real field at three
# bounds (float32 and widened to float64), with FZWGPU_CHAIN_PLANES=on (chain_decode_planes
# wherever it fits, also below the auto threshold), each run compared byte for byte with the
# cpu backend (eval --compare-cpu). Run from the repository root after `cargo build --release`, with
# XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan FZWGPU_CHAIN_PLANES=on
B=${B:-target/release/fzwgpu}; D=../shared/data
fields="cesm_camfv_TS_10x192x288:288x192x10 cesm_camfv_PRECT_10x192x288:288x192x10 cesm_camfv_T_fpzip_month0_30x192x288:288x192x30 sperr_vorticity_41x128x128:128x128x41 sperr_wmag_91x91x91:91x91x91 hadcm3_A1B_tas_240x37x49:49x37x240 um_theta_15x100x100:100x100x15 eraint_z_2x3x241x480:480x241x6 sz_testfloat_128x8x8:8x8x128"
fail=0; runs=0
for shape in own; do
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

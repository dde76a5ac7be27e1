#!/usr/bin/env bash
# Ratio and PSNR of every built-in preset on every field of ../shared/data at
# range-relative bound 1e-3 (NOA), float32, via `fzwgpu eval`. Archives are
# byte-identical on every backend, so the ratios do not depend on the device.
# Usage: scripts/ratio_table.sh [BACKEND]   (default cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
B=target/release/fzwgpu
[ -x "$B" ] || cargo build --release -q
backend=${1:-cpu}
data=../shared/data
declare -A szx=( [cesm_camfv_TS]=2.67 [cesm_camfv_PRECT]=4.02 [cesm_camse_TS]=2.55 [sperr_vorticity_512x512]=2.71
  [sperr_vorticity_41x128x128]=2.46 [sperr_wmag_91x91x91]=2.45 [sperr_999x999]=2.24 [hadcm3]=2.25 [um_theta]=2.31 [eraint_z]=6.47 )
declare -A szp=( [cesm_camfv_TS]=4.33/4.47 [cesm_camfv_PRECT]=5.31/5.52 [cesm_camse_TS]=4.47/4.63 [sperr_vorticity_512x512]=4.47/4.61
  [sperr_vorticity_41x128x128]=4.21/4.17 [sperr_wmag_91x91x91]=3.87/3.98 [sperr_999x999]=3.86/3.97 [hadcm3]=3.78/3.90 [um_theta]=3.52/3.60 [eraint_z]=14.20/15.88 )
echo "| field | dims (x fastest) | szx | upstream SZx | szp_composed | szp_centered | szp (stage) | upstream SZp (ra/non-ra) | PSNR dB szx / composed / centered / szp |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in "$data"/*.f32; do
  stem=$(basename "$f" .f32)
  dims=$(echo "${stem##*_}" | awk -F x '{for(i=NF;i>0;i--) printf "%s%s", $i, (i>1?"x":"")}')
  r1="-"; r2="-"
  for k in "${!szx[@]}"; do [[ $stem == $k* ]] && r1=${szx[$k]} && r2=${szp[$k]}; done
  row="| $stem | $dims"; psnr=""
  for preset in szx szp_composed szp_centered szp; do
    j=$("$B" eval -i "$f" --dims "$dims" --preset "$preset" --eb 1e-3 --mode noa --backend "$backend" --json --repeat 1 | tail -1)
    ratio=$(echo "$j" | python3 -c "import json,sys; j=json.load(sys.stdin); assert j['bound_ok']; print('%.3f' % j['ratio'])")
    psnr="$psnr$(echo "$j" | python3 -c "import json,sys; print('%.2f' % json.load(sys.stdin)['psnr_db'])") / "
    row="$row | $ratio"
    [ "$preset" = szx ] && row="$row | $r1"
  done
  echo "$row | $r2 | ${psnr% / } |"
done

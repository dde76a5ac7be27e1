#!/usr/bin/env bash
# Ratio/PSNR table of the szx preset on every field of ../shared/data at range-relative
# 1e-3 (NOA), float32, via `fzwgpu eval`. Archives are byte-identical on every backend,
# so the ratios do not depend on the device. Usage: scripts/ratio_table.sh [BACKEND]
set -euo pipefail
cd "$(dirname "$0")/.."
B=target/release/fzwgpu
[ -x "$B" ] || cargo build --release -q
backend=${1:-cpu}
data=../shared/data
declare -A up=( [cesm_camfv_TS]=2.67 [cesm_camfv_PRECT]=4.02 [cesm_camse_TS]=2.55 [sperr_vorticity_512x512]=2.71
  [sperr_vorticity_41x128x128]=2.46 [sperr_wmag_91x91x91]=2.45 [sperr_999x999]=2.24 [hadcm3]=2.25 [um_theta]=2.31 [eraint_z]=6.47 )
echo "| field | dims (x fastest) | szx ratio | upstream SZx | PSNR dB | max err / eb |"
echo "|---|---|---|---|---|---|"
for f in "$data"/*.f32; do
  stem=$(basename "$f" .f32)
  dims=$(echo "${stem##*_}" | awk -F x '{for(i=NF;i>0;i--) printf "%s%s", $i, (i>1?"x":"")}')
  ref="-"
  for k in "${!up[@]}"; do [[ $stem == $k* ]] && ref=${up[$k]}; done
  "$B" eval -i "$f" --dims "$dims" --eb 1e-3 --mode noa --backend "$backend" --json --repeat 1 | python3 -c "
import json,sys; j=json.loads(sys.stdin.read().strip().splitlines()[-1])
print('| $stem | $dims | %.3f | $ref | %.2f | %.4f |' % (j['ratio'], j['psnr_db'], j['max_abs_error']/j['resolved_bound']))"
done

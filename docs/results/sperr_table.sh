#!/usr/bin/env bash
# Ratio and PSNR of the sperr_gpu preset on every field of ../shared/data at a
# range-relative bound, next to upstream SPERR (pointwise-error mode, measured on this
# data, figures from the issue). Usage: docs/results/sperr_table.sh [EB] [BACKEND]
# Prints a Markdown table. Run from the repository root after `cargo build --release`.
set -euo pipefail
EB=${1:-1e-3}
BE=${2:-cpu}
declare -A SPERR=(
  [cesm_camfv_TS_10x192x288]=10.47 [cesm_camfv_PRECT_10x192x288]=11.89
  [sperr_vorticity_512x512]=9.23 [sperr_vorticity_41x128x128]=8.25
  [sperr_wmag_91x91x91]=6.92 [sperr_999x999]=6.45 [um_theta_15x100x100]=10.18
)
echo "| field | dims (x fastest) | ratio | bits/value | PSNR dB | max error / bound | corrections | SPERR ratio | ours / SPERR |"
echo "|---|---|---|---|---|---|---|---|---|"
for f in ../shared/data/*.f32; do
  b=$(basename "$f" .f32); d=${b##*_}
  IFS=x read -ra a <<< "$d"
  if [ ${#a[@]} -eq 4 ]; then a=($((a[0]*a[1])) ${a[2]} ${a[3]}); fi
  dims=""; for ((i=${#a[@]}-1;i>=0;i--)); do dims="$dims${a[$i]}x"; done; dims=${dims%x}
  out=$(target/release/fzwgpu eval -i "$f" --dims "$dims" --preset sperr_gpu --eb "$EB" --mode noa --backend "$BE" --repeat 1 2>&1)
  ratio=$(grep compressed <<< "$out" | sed 's/.*ratio \([0-9.]*\),.*/\1/')
  bits=$(grep compressed <<< "$out" | sed 's/.*, \([0-9.]*\) bits.*/\1/')
  psnr=$(grep PSNR <<< "$out" | awk '{print $2}')
  err=$(grep "max abs" <<< "$out" | awk '{print $4}')
  bound=$(grep "resolved bound" <<< "$out" | awk '{print $3}')
  rel=$(python3 -c "print(f'{$err/$bound:.4f}')")
  corr=$(grep notes <<< "$out" | sed 's/.*correct:outliers=\([0-9]*\).*/\1/')
  s=${SPERR[$b]:-}
  if [ -n "$s" ]; then pct=$(python3 -c "print(f'{100*$ratio/$s:.1f}%')"); else s="-"; pct="-"; fi
  echo "| $b | $dims | $ratio | $bits | $psnr | $rel | $corr | $s | $pct |"
done

#!/bin/bash
# Round 43, call a (kit: af79ef4, main's library but for the trace label's formatting).
# On an H200 first (none since round 26): main's szx kernel rows (2-D, 1-D, tiled) and
# the chain presets' 2-D rows through both backends. Then on any card: main's end to
# end szx on the 1 GiB 2-D field, three runs per backend alternated (more samples of
# the share of the copy that compress_into / decompress_into reach).
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "host: $(nproc) cpus,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
h200_rows r43a-table
for k in 1 2 3; do
  left 400 || break
  e2e_shape r43a main cuda fzwgpu
  e2e_shape r43a main wgpu fzwgpu
done
shape_summary r43a
echo "total $(( $(date +%s) - T0 )) s"

#!/bin/bash
# Round 41, kit of main (150769e's kit: the same library code as main but for 94f1884's
# readback mend). Runs on whatever card comes; say which. On an H200 its rows replace
# round 26's in PERFORMANCE.md's table (no H200 came in rounds 27-40). next-r34a.sh's
# steps, reordered so that the kernel table comes first:
# 1. the table's kernel rows, every preset on the 2-D, 1-D and tiled fields through
#    both backends, one process per preset (bench_line)
# 2. end to end, 1 GiB 2-D smooth field, szx, --replays 1, twice per backend alternated
# 3. the transfers and pipeline tests with FZWGPU_HOST_IMPORT=on (cut from r40a), then
#    the transfers, format, pipeline and kernels binaries through both backends
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
/tmp/ct/fzwgpu adapters 2>&1 | grep -E "^selected" | cut -c1-260
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  kernel_table r41a-table 380
else
  # not the targets' card: main's szx rows only (round 35's table has the rest), then stop
  for be in wgpu cuda; do for f in "--size 1G --fields smooth:2d" "--dims 268435456:1d" "--size 256M --fields tiled:tiled"; do
    bench_line r41a-table 200 fzwgpu $be "${f%%:*}" "${f##*:}" szx
  done; done
  echo "total $(( $(date +%s) - T0 )) s (not an H200: stopped after the szx rows)"; exit 0
fi
for be in wgpu cuda wgpu cuda; do
  left 470 || break
  timeout 60 /tmp/ct/fzwgpu bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r41a-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
done
FZWGPU_HOST_IMPORT=on tests_on "transfers pipeline" 530 60 | sed 's/^/import-on /'
tests_on "kernels transfers format pipeline" 570 60
echo "total $(( $(date +%s) - T0 )) s"

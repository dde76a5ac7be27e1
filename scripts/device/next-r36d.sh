#!/bin/bash
# Round 36, call d (after c, same kit). Runs on whatever card comes.
# 1. the fewer-exchanges patch (fzwgpu-b, prepared in round 35) against main: its
#    registers, szx 2-D kernel GB/s alternated twice per backend, validation.sh
# 2. the 1-D and tiled fields: main / one-pass / b, per backend
# 3. end to end szx on the 1 GiB 2-D field: main / one-pass, once per backend
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
printf '#!/bin/bash\nFZWGPU_SZX_ONEPASS=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-lb && chmod +x /tmp/ct/fzwgpu-lb
timeout 60 /tmp/ct/vkstats-b szx_encode8 szx_encode8_lb > $OUT/r36d-vkstats-b.txt 2>&1
grep -E "robust \[" $OUT/r36d-vkstats-b.txt | grep -v "no-" | cut -c1-90
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  bench_line r36d 200 $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=300 val r36d-b /tmp/ct/fzwgpu-b szx 80
for be in wgpu cuda; do for x in fzwgpu fzwgpu-b; do
  bench_line r36d 450 $x $be "--dims 268435456" 1d szx
  bench_line r36d 450 $x $be "--size 256M --fields tiled" tiled szx
done; done
for be in wgpu cuda; do for x in fzwgpu fzwgpu; do left 530 || break
  timeout 40 /tmp/ct/$x bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r36d-e2e-$x-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $x $be: /"
done; done
echo "total $(( $(date +%s) - T0 )) s"

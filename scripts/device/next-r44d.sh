#!/bin/bash
# Round 44, call d: next-r44b.sh and next-r44c.sh in one call, in order of need, as
# device starts were scarce (kit: main c72bb62; fzwgpu-b, vkstats-b and kernels-b of
# main with the szx encoders' flush-free condition on the least nonzero magnitude, in
# .device/extra.tar.xz). (1) szx_encode8's registers, main against b; szx kernel GB/s
# on the 1 GiB 2-D field, b against main, through Vulkan (two alternations) and CUDA
# (one). (2) validation.sh of b's szx through both backends. (3) b's kernels test
# binary through both backends. (4) An ncu source profile of b's szx_encode8 through
# CUDA in the form without COALESCE (Vulkan's code; NVRTC -lineinfo): the SASS page
# with executed counts and stall samples, the generated CUDA C, the details page.
# (5) main's lib binary through CUDA. (6) The tiled field, b against main, Vulkan.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for v in vkstats vkstats-b; do
  timeout 60 /tmp/ct/$v szx_encode8 > $OUT/r44d-$v.txt 2>&1
  echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/r44d-$v.txt | cut -c1-100)"
done
for r in 1 2; do for x in fzwgpu fzwgpu-b; do
  bench_line r44d 200 $x wgpu "--size 1G --fields smooth" 2d szx
done; done
for x in fzwgpu fzwgpu-b; do bench_line r44d 240 $x cuda "--size 1G --fields smooth" 2d szx; done
VAL_LEFT=330 val r44d-b /tmp/ct/fzwgpu-b szx 75
for be in cuda wgpu; do
  left 430 || break
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=$be timeout 80 /tmp/ct/kernels-b --test-threads 8 2>&1)
  echo "$be kernels-b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
ncu=/usr/local/cuda/bin/ncu
if left 470; then
  FZWGPU_COALESCE=0 /tmp/ct/fzwgpu-b kernel-source szx_encode8 --cuda > $OUT/r44d-encode8-c0.cu 2>&1
  FZWGPU_COALESCE=0 FZWGPU_CUDA_LINEINFO=on timeout 70 $ncu -k "regex:szx_encode8" -c 1 --set full --import-source yes -o /tmp/r44d-e8 /tmp/ct/fzwgpu-b bench --backend cuda --size 1G --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > $OUT/r44d-ncu-run.txt 2>&1
  echo "ncu rc=$?: $(grep -E '^szx' $OUT/r44d-ncu-run.txt | cut -c1-60)"
  timeout 40 $ncu -i /tmp/r44d-e8.ncu-rep --page source --csv --print-source sass 2> /tmp/src-err.txt | xz > $OUT/r44d-e8-sass.csv.xz
  echo "source page: $(xz -dc $OUT/r44d-e8-sass.csv.xz | wc -l) lines $(head -c 200 /tmp/src-err.txt)"
  timeout 30 $ncu -i /tmp/r44d-e8.ncu-rep --page details 2>&1 | grep -vE "^\s*$|----" | cut -c1-160 > $OUT/r44d-e8-details.txt
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Executed Instructions  |Warp Cycles Per Issued|Theoretical Occupancy" $OUT/r44d-e8-details.txt | head -12
fi
if left 540; then
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=cuda timeout 40 /tmp/ct/lib --test-threads 8 2>&1)
  echo "cuda lib: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
fi
for x in fzwgpu fzwgpu-b; do BENCH_T=25 bench_line r44d 555 $x wgpu "--size 256M --fields tiled" tiled szx; done
echo "total $(( $(date +%s) - T0 )) s"

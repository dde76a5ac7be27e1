#!/bin/bash
# Round 44, call c (kit: main c72bb62 with .device/extra.tar.xz as in next-r44b.sh).
# (1) Source-level profiles of b's szx_encode8 through CUDA (ncu --set full, one launch
# on the 1 GiB 2-D field, NVRTC -lineinfo), in the form without COALESCE (the code
# Vulkan runs; FZWGPU_COALESCE=0) and CUDA's COALESCE form: the SASS page with each
# instruction's executed count and stall samples, the generated CUDA C, the details
# page. (2) What round 43 left unrun (next-r44a.sh): b's kernels test binary through
# both backends (its new two-sign twin cases), main's lib binary through CUDA (every
# variant through NVRTC), validation.sh of the chain presets through CUDA.
source .device/setup.sh
tar xJf .device/extra.tar.xz -C /tmp/ct
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ncu=/usr/local/cuda/bin/ncu
for c in 0 1; do
  FZWGPU_COALESCE=$c /tmp/ct/fzwgpu-b kernel-source szx_encode8 --cuda > $OUT/r44c-encode8-c$c.cu 2>&1
  FZWGPU_COALESCE=$c FZWGPU_CUDA_LINEINFO=on timeout 150 $ncu -k "regex:szx_encode8" -c 1 --set full --import-source yes -o /tmp/r44c-e8-c$c /tmp/ct/fzwgpu-b bench --backend cuda --size 1G --fields smooth --reps 1 --warmup 0 --replays 0 --presets szx > $OUT/r44c-ncu-run-c$c.txt 2>&1
  echo "ncu coalesce=$c rc=$?: $(grep -E '^szx' $OUT/r44c-ncu-run-c$c.txt | cut -c1-60)"
  timeout 120 $ncu -i /tmp/r44c-e8-c$c.ncu-rep --page source --csv --print-source sass 2> /tmp/src-err.txt | xz > $OUT/r44c-e8-c$c-sass.csv.xz
  echo "source page: $(xz -dc $OUT/r44c-e8-c$c-sass.csv.xz | wc -l) lines $(head -c 200 /tmp/src-err.txt)"
  timeout 60 $ncu -i /tmp/r44c-e8-c$c.ncu-rep --page details 2>&1 | grep -vE "^\s*$|----" | cut -c1-160 > $OUT/r44c-e8-c$c-details.txt
  grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|No Eligible|Executed Instructions  |Warp Cycles Per Issued|Theoretical Occupancy" $OUT/r44c-e8-c$c-details.txt | head -12
done
for be in cuda wgpu; do
  s=$(date +%s)
  r=$(FZWGPU_TEST_BACKEND=$be timeout 100 /tmp/ct/kernels-b --test-threads 8 2>&1)
  echo "$be kernels-b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
done
s=$(date +%s)
r=$(FZWGPU_TEST_BACKEND=cuda timeout 150 /tmp/ct/lib --test-threads 8 2>&1)
echo "cuda lib: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
echo "$r" | grep -E "FAILED|panicked" | head -5
left 440 && run_val r44c-val-chain-cuda cuda "szp_composed szp_centered" "" $(( 570 - $(date +%s) + T0 ))
echo "total $(( $(date +%s) - T0 )) s"

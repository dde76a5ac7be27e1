#!/bin/bash
# Round 38, call c: r38a and r38b in one call, cut to fit (the device was scarce this
# round: eight starts failed). Kit: main at 389e750 + the zero-copy probe.
# 1. the CUDA read stream's correctness: overlap, transfers, concurrency, pipeline,
#    cuda_interop through CUDA; validation.sh of szx through CUDA
# 2. end to end szx, 1 GiB 2-D field, through CUDA: overlap on / off alternated twice
# 3. the zero-copy probe, 1 GiB (scripts/device/probes/zerocopy)
# 4. through wgpu: overlap on / upload / off once
# 5. one traced overlapped bench through CUDA ($OUT/r38c-trace-on-cuda.txt)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in overlap transfers concurrency pipeline cuda_interop; do left 150 || break
  s=$(date +%s); watched 100 /tmp/t.log env FZWGPU_TEST_BACKEND=cuda /tmp/ct/$b --test-threads 8
  echo "cuda $b: $(grep -E '^test result' /tmp/t.log | sed 's/finished in.*//' | tr '\n' ' ') $(grep -cE 'FAILED|panicked' /tmp/t.log) fail-lines $(( $(date +%s) - s )) s"
  grep -E "FAILED|panicked" /tmp/t.log | head -5
done
left 200 && B=/tmp/ct/fzwgpu EXTRA="--backend cuda" PRESETS="szx" timeout 80 bash .device/validation.sh > $OUT/r38c-val-cuda.log 2>&1
echo "validation cuda: $(grep -cE '^sz' $OUT/r38c-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r38c-val-cuda.log) failed, $(grep -c ALL_DONE $OUT/r38c-val-cuda.log) done"
grep '^FAIL' $OUT/r38c-val-cuda.log | cut -c1-160 | head -3
for r in 1 2; do for v in on off; do left 400 || break
  FZWGPU_OVERLAP=$v timeout 40 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r38c-e2e-$v-cuda.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v cuda: /"
done; done
ZC=/tmp/ct/zerocopy-probe; [ -x $ZC ] || ZC=.device/zerocopy-probe
left 430 && timeout 50 $ZC 1024 --iters 5 2>&1 | tee $OUT/r38c-zerocopy-1024.txt | sed "s/^/zc: /"
for v in on upload off; do left 500 || break
  FZWGPU_OVERLAP=$v timeout 40 /tmp/ct/fzwgpu bench --backend wgpu --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r38c-e2e-$v-wgpu.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v wgpu: /"
done
left 540 && FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=on timeout 40 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r38c-trace-on-cuda.txt 2>&1
grep -E "^sz" $OUT/r38c-trace-on-cuda.txt | cut -c1-200 | sed "s/^/trace cuda: /"
echo "total $(( $(date +%s) - T0 )) s"

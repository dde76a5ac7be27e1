#!/bin/bash
# Round 38, call a. Kit: main at 389e750 (CUDA reads on a stream of their own).
# 1. correctness of the new read path through CUDA: the test binaries that read back
#    (overlap, transfers, concurrency, pipeline, stream, faults, cuda_interop, lib) with
#    FZWGPU_TEST_BACKEND=cuda, and validation.sh of szx and the SZp chains through CUDA
# 2. end to end szx on the 1 GiB 2-D field through CUDA: overlap on / upload / off
#    alternated twice, then one traced overlapped bench ($OUT/r38a-trace-on-cuda.txt)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in overlap transfers concurrency pipeline stream faults cuda_interop lib; do left 200 || break
  s=$(date +%s); watched 120 /tmp/t.log env FZWGPU_TEST_BACKEND=cuda /tmp/ct/$b --test-threads 8
  echo "cuda $b: $(grep -E '^test result' /tmp/t.log | sed 's/finished in.*//' | tr '\n' ' ') $(grep -cE 'FAILED|panicked' /tmp/t.log) fail-lines $(( $(date +%s) - s )) s"
  grep -E "FAILED|panicked" /tmp/t.log | head -5
done
left 250 && B=/tmp/ct/fzwgpu EXTRA="--backend cuda" PRESETS="szx szp_composed" timeout 100 bash .device/validation.sh > $OUT/r38a-val-cuda.log 2>&1
echo "validation cuda: $(grep -cE '^sz' $OUT/r38a-val-cuda.log) passed, $(grep -c '^FAIL' $OUT/r38a-val-cuda.log) failed, $(grep -c ALL_DONE $OUT/r38a-val-cuda.log) done"
grep '^FAIL' $OUT/r38a-val-cuda.log | cut -c1-160 | head -3
for r in 1 2; do for v in on upload off; do left 500 || break
  FZWGPU_OVERLAP=$v timeout 45 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json $OUT/r38a-e2e-$v-cuda.jsonl 2>&1 | grep -E "^sz" | cut -c1-200 | sed "s/^/e2e $v cuda: /"
done; done
left 540 && FZWGPU_OVERLAP_TRACE=1 FZWGPU_OVERLAP=on timeout 45 /tmp/ct/fzwgpu bench --backend cuda --size 1G --fields smooth --reps 1 --replays 1 --presets szx > $OUT/r38a-trace-on-cuda.txt 2>&1
grep -E "^sz" $OUT/r38a-trace-on-cuda.txt | cut -c1-200 | sed "s/^/trace cuda: /"
echo "total $(( $(date +%s) - T0 )) s"
save_cache

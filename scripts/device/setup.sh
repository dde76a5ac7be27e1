# Sourced at the start of every device command (see kit.sh): the Vulkan loader, the
# kit's binaries in /tmp/ct (fzwgpu, fzwgpu-b, the test binaries), the real fields in
# /tmp/data, NVRTC on the library path, the CUDA kernel cache if one came along
# (.device/cubin-cache.tar; save_cache writes it to $OUT for the next machine).
source .device/vulkan-env.sh
mkdir -p /tmp/ct /tmp/data
[ -x /tmp/ct/fzwgpu ] || tar xJf .device/kit.tar.xz -C /tmp/ct
[ -f /tmp/data/SHA256SUMS ] || tar xJf .device/data.tar.xz -C /tmp/data
if [ -f .device/cubin-cache.tar ]; then mkdir -p "$HOME/.cache/fzwgpu" && tar xf .device/cubin-cache.tar -C "$HOME/.cache/fzwgpu" 2>/dev/null || true; fi
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export FZWGPU_DATA_DIR=/tmp/data FZWGPU_BIN=/tmp/ct/fzwgpu
save_cache() { tar cf "$OUT/cubin-cache.tar" -C "$HOME/.cache/fzwgpu" . 2>/dev/null || true; }
T0=$(date +%s)
# left [seconds]: true while the command has run less than that (default 520 s)
left() { [ $(( $(date +%s) - T0 )) -lt "${1:-520}" ]; }
# watched SECS LOG CMD...: run CMD with its output in LOG; past SECS, print each thread's
# name, wait channel and kernel stack (and a gdb backtrace where gdb exists), then kill
# it (the faults binary hung twice in the suite through CUDA, never alone: round 13)
watched() {
  local secs=$1 log=$2 s=$(date +%s) pid; shift 2
  "$@" > "$log" 2>&1 & pid=$!
  while kill -0 $pid 2>/dev/null && [ $(( $(date +%s) - s )) -lt $secs ]; do sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    echo "HANG after $secs s: $*"
    for tk in /proc/$pid/task/*; do echo "  task $(cat $tk/comm 2>/dev/null) wchan=$(cat $tk/wchan 2>/dev/null)"; head -6 $tk/stack 2>/dev/null | sed 's/^/      /'; done
    command -v gdb >/dev/null && timeout 30 gdb -p $pid -batch -ex "thread apply all bt 12" 2>/dev/null | grep -E "^#|^Thread" | cut -c1-200 | head -80
    # every thread's user-space stack (eu-stack from the kit; no gdb on the device)
    [ -x /tmp/ct/eu-stack ] && timeout 30 env LD_LIBRARY_PATH=/tmp/ct /tmp/ct/eu-stack -p $pid 2>&1 | cut -c1-200 | head -400
    kill -9 $pid; wait $pid 2>/dev/null; return 124
  fi
  wait $pid
}
# val LABEL BINARY "PRESETS" [LIMIT]: validation.sh of BINARY's presets through CUDA and
# Vulkan (eval --compare-cpu on every real field), a count line per backend
val() {
  local be
  for be in cuda wgpu; do left ${VAL_LEFT:-470} || break
    B=$2 EXTRA="--backend $be" PRESETS="$3" timeout ${4:-110} bash .device/validation.sh > $OUT/$1-val-$be.log 2>&1
    echo "validation $1 $be: $(grep -cE '^sz' $OUT/$1-val-$be.log) passed, $(grep -c '^FAIL' $OUT/$1-val-$be.log) failed, $(grep -c ALL_DONE $OUT/$1-val-$be.log) done"
    grep '^FAIL' $OUT/$1-val-$be.log | cut -c1-160 | head -3
  done
}
# run_val TAG BACKEND PRESETS SHAPE TIMEOUT: validation.sh of main's CLI through one
# backend (SHAPE 1d: every field flattened), its log in $OUT/TAG.log, a line of counts
run_val() {
  SHAPE=$4 B=/tmp/ct/fzwgpu EXTRA="--backend $2" PRESETS="$3" timeout $5 bash .device/validation.sh > $OUT/$1.log 2>&1
  echo "validation $1: $(grep -cE '^sz' $OUT/$1.log) passed, $(grep -c '^FAIL' $OUT/$1.log) failed, $(grep -c ALL_DONE $OUT/$1.log) done"
  grep '^FAIL' $OUT/$1.log | cut -c1-160 | head -3
}
# bench_line TAG LEFT BINARY BACKEND FIELD-ARGS LABEL PRESETS: one kernel benchmark
# (3 repetitions; JSON in $OUT/TAG-BACKEND.jsonl), a line per preset with its ratio and
# compress / decompress kernel GB/s; nothing once the command has run LEFT seconds;
# BENCH_T: its time limit (default 45 s; two presets on 1 GiB need ~70)
bench_line() {
  left $2 || return 0
  timeout ${BENCH_T:-45} /tmp/ct/$3 bench --backend $4 $5 --reps 3 --presets $7 --json $OUT/$1-$4.jsonl 2>&1 | grep -E "^sz" | awk -v t="$3 $4 $6" '{print t, $1, "ratio", $2, "compress", $3, "decompress", $8, "ok", $NF}'
}
# e2e LABEL PRESETS: end to end (--replays 1) on the 1 GiB smooth field through CUDA and
# Vulkan, JSON in $OUT/LABEL-e2e-BACKEND.jsonl (E2E_BIN: another binary, e.g. fzwgpu-b)
e2e() {
  local be
  for be in cuda wgpu; do left ${E2E_LEFT:-150} || break
    timeout 70 ${E2E_BIN:-/tmp/ct/fzwgpu} bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets $2 --json $OUT/$1-e2e-$be.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/e2e $be: /"
  done
}
# tests_filter BACKEND BINARY FILTER TIMEOUT: one test binary of the kit, only the
# tests whose names contain FILTER, through BACKEND (8 threads): a result line and its
# first failures (rounds 46-47's device checks of the one-pass encoder)
tests_filter() {
  local s=$(date +%s) r
  r=$(FZWGPU_TEST_BACKEND=$1 timeout $4 /tmp/ct/$2 $3 --test-threads 8 2>&1)
  echo "$1 $2 $3: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
  echo "$r" | grep -E "FAILED|panicked" | head -5
}
# szx_shapes LABEL "BINARIES": szx on the tiled CESM TS field (256 MiB) and the 1-D
# 1 GiB field, each binary of the kit through Vulkan, then CUDA (rows of round 47's
# one-pass A/B; stops past 500 / 520 s)
szx_shapes() {
  local be x
  for be in wgpu cuda; do for x in $2; do
    BENCH_T=30 bench_line $1 500 $x $be "--size 256M --fields tiled" tiled szx
    BENCH_T=30 bench_line $1 520 $x $be "--dims 268435456" 1d szx
  done; done
}
# tests_on "BINARIES" LEFT TIMEOUT: each test binary of the kit through CUDA, then
# Vulkan (8 threads), a result line each and its first failures; stops past LEFT s
tests_on() {
  local be b s r
  for be in cuda wgpu; do
    for b in $1; do
      left $2 || return 0
      s=$(date +%s)
      r=$(FZWGPU_TEST_BACKEND=$be timeout $3 /tmp/ct/$b --test-threads 8 2>&1)
      echo "$be $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
      echo "$r" | grep -E "FAILED|panicked" | head -5
    done
  done
}
# chains ROUND LEFT TIMEOUT LABEL BACKEND FIELD-ARGS FIELD-LABEL BINARY: both chain
# presets' bench (--reps 3), one line per preset "LABEL BACKEND FIELD preset compress
# X decompress Y", JSON in $OUT/ROUND-LABEL-BACKEND.jsonl; nothing past LEFT s
chains() {
  left $2 || return 0
  timeout $3 $8 bench --backend $5 $6 --reps 3 --presets szp_composed,szp_centered --json $OUT/$1-$4-$5.jsonl 2>&1 | grep -E "^sz" | awk -v t="$4 $5 $7" '{print t, $1, "compress", $3, "decompress", $8}'
}
# tests_through BACKEND [LEFT]: the kernel, fusion and adversarial SZp test binaries of
# the kit through BACKEND (cuda or wgpu), one result line each, while left LEFT holds
tests_through() {
  local b s r
  for b in kernels fusion adversarial_szp; do
    left ${2:-520} || break
    s=$(date +%s)
    r=$(FZWGPU_TEST_BACKEND=$1 timeout 120 /tmp/ct/$b --test-threads 8 2>&1)
    echo "$1 $b: $(echo "$r" | grep -E '^test result' | sed 's/finished in.*//') $(echo "$r" | grep -cE 'FAILED|panicked') fail-lines $(( $(date +%s) - s )) s"
    echo "$r" | grep -E "FAILED|panicked" | head -5
  done
}
# prof LABEL BINARY BENCH-ARGS...: per-dispatch times of five replays (FZWGPU_PROFILE=1,
# summarized by profile-summary.py, which the kit's user copies into .device/)
prof() {
  local l=$1 x=$2; shift 2
  FZWGPU_PROFILE=1 timeout 40 /tmp/ct/$x bench "$@" --reps 1 --warmup 0 --replays 5 > /tmp/prof.log 2>&1
  echo "== profile $l"; python3 .device/profile-summary.py /tmp/prof.log 2>&1 | grep -A10 "submissions of [0-9]* dispatches (5" | head -16
}
# kernel_table TAG LEFT: main's kernel rows, every preset on the 2-D, 1-D and tiled
# fields through Vulkan then CUDA (bench_line, JSON in $OUT/TAG-BACKEND.jsonl); nothing
# started past LEFT s
kernel_table() {
  local be f p
  for be in wgpu cuda; do
    for f in "--size 1G --fields smooth:2d" "--dims 268435456:1d" "--size 256M --fields tiled:tiled"; do
      for p in szx szp_composed szp_centered; do
        bench_line $1 $2 fzwgpu $be "${f%%:*}" "${f##*:}" $p
      done
    done
  done
}
# szx_ab ROUND: the A/B of an SZx encoder patch (fzwgpu-b, vkstats-b) against main, as
# rounds 34-35 ran it: szx_encode8's registers through the Vulkan driver; szx kernel
# GB/s on the 1 GiB 2-D field, main / b alternated twice per backend; validation.sh of
# b's szx through both backends; the 1-D and tiled fields, b / main; per-dispatch
# profiles of the 2-D and tiled fields through Vulkan, main / b. Output files
# $OUT/ROUND-*; nothing started past 530 s.
szx_ab() {
  local rd=$1 v be r x
  for v in vkstats vkstats-b; do
    timeout 60 /tmp/ct/$v szx_encode8 > $OUT/$rd-$v.txt 2>&1
    echo "$v: $(grep -E 'szx_encode8 robust \[' $OUT/$rd-$v.txt | cut -c1-100)"
  done
  for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-b; do
    bench_line $rd 200 $x $be "--size 1G --fields smooth" 2d szx
  done; done; done
  VAL_LEFT=280 val $rd-b /tmp/ct/fzwgpu-b szx 80
  for be in wgpu cuda; do for x in fzwgpu-b fzwgpu; do
    bench_line $rd 420 $x $be "--dims 268435456" 1d szx
    bench_line $rd 420 $x $be "--size 256M --fields tiled" tiled szx
  done; done
  for x in fzwgpu fzwgpu-b; do left 500 || break; prof "$x wgpu 2-D szx" $x --backend wgpu --size 1G --fields smooth --presets szx; done
  for x in fzwgpu fzwgpu-b; do left 530 || break; prof "$x wgpu tiled szx" $x --backend wgpu --size 256M --fields tiled --presets szx; done
}
# e2e_shape TAG LABEL BACKEND BINARY [VAR=VALUE...]: end to end szx on the 1 GiB 2-D
# field (--replays 1) with the variables set, its line printed with LABEL, its JSON
# records tagged "shape": LABEL appended to $OUT/TAG-e2e.jsonl (round 41's A/B runs);
# E2E_LOG=FILE keeps the whole output there (round 42's transfer traces)
e2e_shape() {
  local t=$1 l=$2 be=$3 bin=$4; shift 4
  rm -f /tmp/one.jsonl
  env "$@" timeout 60 /tmp/ct/$bin bench --backend $be --size 1G --fields smooth --reps 3 --replays 1 --presets szx --json /tmp/one.jsonl 2>&1 | tee ${E2E_LOG:-/dev/null} | grep -E "^copy|^sz" | cut -c1-230 | sed "s/^/$l $be: /"
  [ -f /tmp/one.jsonl ] && python3 -c "
import json
for line in open('/tmp/one.jsonl'):
    r=json.loads(line); r['shape']='$l'; print(json.dumps(r))" >> $OUT/$t-e2e.jsonl
}
# shape_summary TAG: per backend and shape, the copies, compress_into / decompress_into
# (GB/s and % of the run's copy) and their transfer phases (ms) from $OUT/TAG-e2e.jsonl
shape_summary() {
  python3 - "$OUT/$1-e2e.jsonl" <<'PY'
import json,collections,sys
rows=collections.defaultdict(list)
for line in open(sys.argv[1]):
    r=json.loads(line); rows[(r['backend'],r['shape'])].append(r)
for (be,sh),rs in sorted(rows.items()):
    f=lambda k: ' '.join('%.1f'%r[k] for r in rs)
    ms=lambda d,k: ' '.join('%.2f'%(1e3*r[d][k]) for r in rs)
    print(f"{be} {sh}: up {f('copy_up_gbps')} | down-touched {f('copy_down_touched_gbps')} | c_into {f('compress_into_e2e_gbps')} ({f('compress_into_pct_of_upload')}%) | d_into {f('decompress_into_e2e_gbps')} ({f('decompress_into_pct_of_touched_download')}%) | c_dl {ms('compress_into_phases_s','download')} | c_up {ms('compress_into_phases_s','upload')} | d_up {ms('decompress_into_phases_s','upload')} | d_dl {ms('decompress_into_phases_s','download')}")
PY
}
# h200_rows TAG: on an H200 only (none since round 26), main's szx kernel rows (2-D,
# 1-D, tiled) and the chain presets' 2-D rows through both backends (bench_line, JSON
# in $OUT/TAG-BACKEND.jsonl); nothing on any other card (round 42's scripts)
h200_rows() {
  nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || return 0
  local be f p
  for be in cuda wgpu; do for f in "--size 1G --fields smooth:2d" "--dims 268435456:1d" "--size 256M --fields tiled:tiled"; do
    bench_line $1 200 fzwgpu $be "${f%%:*}" "${f##*:}" szx
  done; done
  for be in cuda wgpu; do for p in szp_composed szp_centered; do
    bench_line $1 240 fzwgpu $be "--size 1G --fields smooth" 2d $p
  done; done
}
# on_wrappers "LETTERS": /tmp/ct/fzwgpu-on and, per letter X, /tmp/ct/fzwgpu-Xon: the
# kit's fzwgpu / fzwgpu-X with FZWGPU_SZX_LOOKBACK=on (round 48's one-pass A/B runs)
on_wrappers() {
  local s
  for s in "" $1; do
    printf '#!/bin/bash\nFZWGPU_SZX_LOOKBACK=on exec /tmp/ct/fzwgpu%s "$@"\n' "${s:+-$s}" > /tmp/ct/fzwgpu-${s}on && chmod +x /tmp/ct/fzwgpu-${s}on
  done
}

#!/bin/bash
# Round 21, call 3 (prepared in round 21, not yet run). Kit (KIT_D: main before the
# decode stopped copying the archive's metadata):
#   KIT_B=scripts/device/patches/szx-compact-vec4.patch \
#   KIT_C=scripts/device/patches/range-final-unrolled.patch KIT_D=c1da48f bash scripts/device/kit.sh
#   (c1da48f: "bench --json: each phase ... median", the parent of the change; the
#   same kit serves next-r21a.sh and next-r21b.sh). Round 19 (h200-r19d): szx decompress_into through Vulkan 31.8 GB/s,
#   79% of the readback into touched memory; phases (ms) upload 4.75, host.copy 1.89,
#   host.record 0.67, device 1.24, download 25.13. The copy is gone on main.
# End to end (--replays 1) on the 1 GiB smooth field, szx and szp_composed, fzwgpu-d
# and main alternating, two rounds, through Vulkan then CUDA; the phases' medians
# (decompress_into) printed per run
source .device/setup.sh
e2e_ab() { # round backend binary
  timeout 80 /tmp/ct/$3 bench --backend $2 --size 1G --fields smooth --reps 5 --replays 1 --presets szx,szp_composed --json $OUT/r21c-e2e-$3-$2.jsonl 2>&1 | grep -E "^copy|^sz" | cut -c1-200 | sed "s/^/$1 $2 $3: /"
}
for round in 1 2; do
  for be in wgpu cuda; do
    for bin in fzwgpu-d fzwgpu; do
      left 500 && e2e_ab $round $be $bin
    done
  done
done
python3 - "$OUT" <<'PY'
import json, glob, sys
for f in sorted(glob.glob(sys.argv[1] + "/r21c-e2e-*.jsonl")):
    for l in open(f):
        r = json.loads(l[l.find("{"):])
        ph = r.get("decompress_into_phases_s") or {}
        keep = ("upload", "host", "host.copy", "host.record", "device", "download")
        print(f.split("r21c-e2e-")[1], r["preset"], "dec_into", round(r.get("decompress_into_e2e_gbps") or 0, 1),
              round(r.get("decompress_into_pct_of_touched_download") or 0, 1), {k: round(v * 1e3, 2) for k, v in ph.items() if k in keep})
PY
echo "total $(( $(date +%s) - T0 )) s"

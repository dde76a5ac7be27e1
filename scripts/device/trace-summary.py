#!/usr/bin/env python3
# Summary of FZWGPU_TRANSFER_TRACE lines: staged transfers grouped by kind, size and the
# host address's alignment; medians of the total, the host copies' sum, the first
# copy, the waits' sum and the final wait (ms); then ranges over the group's transfers:
# each whole fill's copy, the median of the last ten fills' copies (transfers of 20
# fills or more) and the final wait. Usage: trace-summary.py LOG...
import sys, re, statistics as st
pat = re.compile(r'transfer-trace: (.+?) (\d+) B \(host % 64 = (\d+), % 4096 = (\d+)\) in (\d+) fills of (\d+) B: total ([\d.]+) ms; waits ([\d. ]*); copies ([\d. ]*); final wait ([\d.]+)')
for fn in sys.argv[1:]:
    groups = {}
    for line in open(fn):
        m = pat.search(line)
        if not m:
            continue
        w = [float(x) for x in m[8].split()]
        c = [float(x) for x in m[9].split()]
        key = (m[1], int(m[2]), int(m[3]), int(m[5]), int(m[6]))
        whole = c[:-1] if int(m[2]) % int(m[6]) else c
        late = st.median(c[-10:]) if len(c) >= 20 else None
        groups.setdefault(key, []).append((float(m[7]), sum(c), c[0] if c else 0, sum(w), float(m[10]), whole, late))
    print(f"== {fn}")
    for (what, b, a, n, ch), v in sorted(groups.items()):
        med = lambda i: st.median(x[i] for x in v)
        print(f"  {what:18s} {b:11d} B %64={a:2d} {n:3d} fills of {ch >> 20}M x{len(v):2d}: total {med(0):7.3f} ms ({b / med(0) / 1e6:5.1f} GB/s), copies {med(1):7.3f} (first {med(2):.3f}), waits {med(3):7.3f}, final wait {med(4):.3f}")
        fills = [f for x in v for f in x[5]]
        late = [x[6] for x in v if x[6] is not None]
        rng = lambda xs: f"{min(xs):.3f}-{max(xs):.3f}" if xs else "-"
        print(f"  {'':18s} ranges: whole fill's copy {rng(fills)} ms, last ten fills' median {rng(late)} ms, final wait {rng([x[4] for x in v])} ms")

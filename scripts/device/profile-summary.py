#!/usr/bin/env python3
# Summary of `FZWGPU_PROFILE=1 fzwgpu bench` logs: the profiled submissions grouped by
# their kernels (with dispatch counts); medians over each group, in ms per replay (the
# gcd of the dispatch counts). Usage: python3 scripts/device/profile-summary.py LOG...
import sys,re,math,statistics as st
for fn in sys.argv[1:]:
    blocks=[];cur=None
    for line in open(fn):
        m=re.match(r'profile: (\d+) dispatches, span ([\d.]+) ms, sum of kernels ([\d.]+) ms',line)
        if m:
            cur=[int(m[1]),float(m[2]),float(m[3]),[]];blocks.append(cur);continue
        m=re.match(r'profile:\s+(\S+)\s+x(\d+)\s+(\d+) groups\s+([\d.]+) ms',line)
        if m and cur: cur[3].append((m[1],int(m[2]),int(m[3]),float(m[4])))
    print(f"== {fn}: {len(blocks)} profiled submissions (ms per replay, medians)")
    order=[];groups={}
    for b in blocks:
        sig=tuple((k[0],k[1]) for k in b[3])
        if sig not in groups: groups[sig]=[];order.append(sig)
        groups[sig].append(b)
    for sig in order:
        g=groups[sig]; rep=math.gcd(*[x for _,x in sig])
        print(f"  {len(g):4d} submissions of {g[0][0]} dispatches ({rep} replay(s)): span {st.median(b[1] for b in g)/rep:.3f}, kernels {st.median(b[2] for b in g)/rep:.3f}")
        for i,(name,x) in enumerate(sig):
            print(f"        {name:22s} x{x//rep:<3d} {g[0][3][i][2]//rep:8d} groups  {st.median(b[3][i][3] for b in g)/rep:.3f}")

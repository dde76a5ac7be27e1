#!/usr/bin/env python3
# A model of a staged upload (round 42): fills copied by the host one after another at
# C GB/s (plus a fixed cost per fill), each then moved by the DMA engine at D GB/s in
# order, a buffer reused only once its previous DMA is done. Prints the modelled time
# of a transfer cut into 32 MiB fills, 8 MiB fills, and 32 MiB fills whose last 32 MiB
# is graded down (16, 8, 4, 2 MiB), for the rates the H100 traces showed
# (h100-r42a.log, h100-r42b.log). Usage: staging-model.py
def model(fills, c, d, per_fill=0.03, nbuf=2):
    copy_end, dma_end, t = [], [], 0.0
    for i, p in enumerate(fills):
        start = max(t, dma_end[i - nbuf] if i >= nbuf else 0.0)
        t = start + per_fill + p / c
        copy_end.append(t)
        dma_end.append(max(t, dma_end[i - 1] if i else 0.0) + p / d)
    return dma_end[-1]

def even(total, size):
    out = []
    while total > 1e-9:
        out.append(min(size, total))
        total -= out[-1]
    return out

def graded_tail(total, size, smallest=2):
    tail, p = [], size / 2
    while p >= smallest:
        tail.append(p)
        p /= 2
    tail.append(smallest)
    body = total - sum(tail)
    return even(body, size) + tail if body > 0 else even(total, size)

# sizes in MB, rates in GB/s (= MB/ms): times in ms
for total, c, d in [(134.5, 28, 37), (134.5, 40, 45), (1024, 40, 37), (1024, 47, 53)]:
    for nbuf in (2, 4):
        row = [f"{name} {model(f, c, d, nbuf=nbuf):.3f}" for name, f in
               [("32M", even(total, 32)), ("8M", even(total, 8)), ("graded", graded_tail(total, 32))]]
        print(f"{total:6} MB, copy {c} GB/s, DMA {d} GB/s, {nbuf} buffers: " + ", ".join(row) + " ms")

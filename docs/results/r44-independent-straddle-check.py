# Independent float64 check of fzwgpu's CLI for round 44's SZx change (the flush-free
# path's condition is the block's least nonzero magnitude >= T, whatever the signs):
# float32 blocks that straddle zero, some holding zeros (+0 and -0), whose least nonzero
# magnitude sits at T = max(2^-100, eb * 2^-90), just below or above it, or far above
# (smooth sign changes as in bench's field), whole and ragged fields, absolute and
# range-relative (NOA) bounds. Every value must satisfy |x - x'| <= eb in float64
# arithmetic, and the wgpu archive must equal the cpu backend's byte for byte.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder; lavapipe:
# VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import math, struct, subprocess, sys, random
B = sys.argv[1]
random.seed(44)
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
total = viol = 0
worst = 0.0
for eb, mode in [(1e-3, 'abs'), (3.0, 'abs'), (1e20, 'abs'), (2.0 ** -95, 'abs'), (1e-3, 'noa')]:
    t = max(2.0 ** -100, eb * 2.0 ** -90) if mode == 'abs' else None
    for n in [128 * 256, 128 * 200 + 45]:
        v = []
        for i in range(n):
            b, j = i // 128, i % 128
            kind = b % 6
            r = random.random()
            if kind == 0 or t is None:
                # a smooth wave through zero (the blocks that cross it straddle)
                x = math.sin(i * 0.003) * 2.0 + 0.001 * r
            else:
                base = {1: t, 2: t * 0.999, 3: t * 1.001, 4: eb * 10.0, 5: eb * 0.4}[kind]
                x = [base, -base * (1 + r * 1e-6), 0.0, -0.0, base * (1 + 4 * r), -base * (1 + 4 * r)][j % 6]
            v.append(f32(x))
        raw = struct.pack('<%df' % n, *v)
        open('in.f32', 'wb').write(raw)
        arch = {}
        for be in ['wgpu', 'cpu']:
            r = subprocess.run([B, 'compress', '-i', 'in.f32', '-o', f'a-{be}.fzm', '--dims', str(n), '--preset', 'szx', '--eb', repr(eb), '--mode', mode, '--backend', be], capture_output=True, text=True)
            if r.returncode: print('compress failed', eb, n, be, r.stderr); sys.exit(1)
            arch[be] = open(f'a-{be}.fzm', 'rb').read()
        same = arch['wgpu'] == arch['cpu']
        r = subprocess.run([B, 'decompress', '-i', 'a-wgpu.fzm', '-o', 'out.f32', '--backend', 'wgpu'], capture_output=True, text=True)
        if r.returncode: print('decompress failed', eb, n, r.stderr); sys.exit(1)
        out = struct.unpack('<%df' % n, open('out.f32', 'rb').read())
        # the absolute bound: eb itself, or eb * (max - min) for NOA (finite values)
        e_abs = eb if mode == 'abs' else eb * (max(v) - min(v))
        bad = 0
        for x, y in zip(v, out):
            e = abs(x - y)
            worst = max(worst, e / e_abs)
            if e > e_abs: bad += 1
        total += n; viol += bad
        print(f'eb {eb} {mode} n {n}: archives wgpu == cpu: {same}, ratio {4 * n / len(arch["wgpu"]):.3f}, violations {bad}')
        if not same: viol += 1
print(f'values checked {total}, violations {viol}, max error / eb {worst:.6f}')

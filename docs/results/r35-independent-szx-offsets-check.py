# Independent float64 check of fzwgpu's CLI for round 35's SZx changes (the code rounded
# to even and the flush-free first test, fast_lim): values near the middle between two
# codes at large magnitudes against eb (|x| / eb from 2^6 to 2^24), blocks of either
# sign, float32, whole and ragged fields. Every value must satisfy |x - x'| <= eb in
# float64 arithmetic, and the wgpu archive must equal the cpu backend's byte for byte.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder; lavapipe:
# VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, random
B = sys.argv[1]
random.seed(35)
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
total = viol = 0
worst = 0.0
for eb in [1.37e-3, 0.25, 3.3e4]:
    step = 2 * f32(eb)
    for n in [128 * 400, 128 * 300 + 77]:
        v = []
        for i in range(n):
            b = i // 128
            k = 6 + (b % 19)
            sign = -1.0 if b % 3 == 2 else 1.0
            base = eb * 2.0 ** k
            j = 0.0 if i % 128 == 0 else (int(random.random() * 60) + 0.5 + (random.random() - 0.5) * 0.06)
            v.append(f32(sign * (base + j * step)))
        raw = struct.pack('<%df' % n, *v)
        open('in.f32', 'wb').write(raw)
        arch = {}
        for be in ['wgpu', 'cpu']:
            r = subprocess.run([B, 'compress', '-i', 'in.f32', '-o', f'a-{be}.fzm', '--dims', str(n), '--preset', 'szx', '--eb', repr(eb), '--mode', 'abs', '--backend', be], capture_output=True, text=True)
            if r.returncode: print('compress failed', eb, n, be, r.stderr); sys.exit(1)
            arch[be] = open(f'a-{be}.fzm', 'rb').read()
        same = arch['wgpu'] == arch['cpu']
        r = subprocess.run([B, 'decompress', '-i', 'a-wgpu.fzm', '-o', 'out.f32', '--backend', 'wgpu'], capture_output=True, text=True)
        if r.returncode: print('decompress failed', eb, n, r.stderr); sys.exit(1)
        out = struct.unpack('<%df' % n, open('out.f32', 'rb').read())
        bad = 0
        for x, y in zip(v, out):
            e = abs(x - y)
            worst = max(worst, e / eb)
            if e > eb: bad += 1
        total += n; viol += bad
        print(f'eb {eb} n {n}: archives wgpu == cpu: {same}, ratio {4 * n / len(arch["wgpu"]):.3f}, violations {bad}')
        if not same: viol += 1
print(f'values checked {total}, violations {viol}, max error / eb {worst:.6f}')

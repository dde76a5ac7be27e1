# Independent float64 check of fzwgpu's CLI (no numpy): fields with NaN, +-Inf,
# subnormals and huge values, ragged 2-D widths; |x - x'| <= eb for every finite value,
# non-finite values bit-exact.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder (temporary files go to the
# current directory); lavapipe: VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, os, random
B = sys.argv[1]
random.seed(7)
def field(nx, ny):
    v = []
    for i in range(nx * ny):
        x = math.sin(i * 0.013) * 40.0 + random.random()
        if i % 997 == 3: x = float('nan')
        elif i % 997 == 5: x = float('inf')
        elif i % 997 == 6: x = float('-inf')
        elif i % 997 == 7: x = 1e-42
        elif i % 997 == 11: x = 3e38
        elif i % 997 == 13: x = -3e38
        v.append(x)
    return v
def f32(x): return struct.unpack('<f', struct.pack('<f', x))[0]
total = viol = 0
worst = 0.0
env = dict(os.environ)
for (nx, ny) in [(1002, 7), (33, 41), (91, 30), (1, 600)]:
    v = field(nx, ny)
    raw = struct.pack('<%df' % len(v), *v)
    open('in.f32', 'wb').write(raw)
    vals = struct.unpack('<%df' % len(v), raw)  # the float32 inputs, as f64
    for preset in ['szx', 'szp_composed', 'szp_centered']:
        for scan in ['on', 'off']:
            eb = 1e-3
            e = dict(env); e['FZWGPU_CHAIN_SCAN'] = scan
            r = subprocess.run([B, 'compress', '-i', 'in.f32', '-o', 'a.fzm', '--dims', f'{nx}x{ny}', '--preset', preset, '--eb', str(eb), '--mode', 'abs', '--backend', 'wgpu'], capture_output=True, text=True, env=e)
            if r.returncode: print('compress failed', nx, ny, preset, r.stderr); sys.exit(1)
            r = subprocess.run([B, 'decompress', '-i', 'a.fzm', '-o', 'out.f32', '--backend', 'wgpu'], capture_output=True, text=True, env=e)
            if r.returncode: print('decompress failed', nx, ny, preset, r.stderr); sys.exit(1)
            outb = open('out.f32', 'rb').read()
            out = struct.unpack('<%df' % len(v), outb)
            for j, (x, y) in enumerate(zip(vals, out)):
                total += 1
                if math.isfinite(x):
                    d = abs(x - y)
                    worst = max(worst, d)
                    if not (d <= eb): viol += 1
                else:
                    if raw[4*j:4*j+4] != outb[4*j:4*j+4]: viol += 1
print(f'values checked {total}, violations {viol}, max error {worst!r}')
sys.exit(1 if viol else 0)

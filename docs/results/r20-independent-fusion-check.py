# Independent float64 check of `fzwgpu decompress --fusion auto|force|off` (no fzwgpu
# code, no numpy): ragged 2-D fields with NaN, +-Inf, subnormals and huge values through
# both chain presets; |x - x'| <= eb for every finite value, non-finite values
# bit-exact, and the three decoders' outputs identical.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder; lavapipe:
# VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, random
B = sys.argv[1]
random.seed(11)
EB = 1e-3
total = viol = 0
worst = 0.0
for (nx, ny) in [(41, 33), (91, 300), (1001, 17)]:
    v = []
    for i in range(nx * ny):
        x = math.cos(i * 0.007) * 25.0 + random.random() * 0.1
        k = i % 613
        if k == 3: x = float('nan')
        elif k == 5: x = float('inf')
        elif k == 6: x = float('-inf')
        elif k == 7: x = 1e-42
        elif k == 11: x = 3e38
        v.append(x)
    raw = struct.pack('<%df' % len(v), *v)
    open('in.f32', 'wb').write(raw)
    vals = struct.unpack('<%df' % len(v), raw)
    for preset in ['szp_composed', 'szp_centered']:
        subprocess.run([B, 'compress', '--backend', 'wgpu', '-i', 'in.f32', '--dims', '%dx%d' % (nx, ny), '--preset', preset,
                        '--eb', str(EB), '--mode', 'abs', '-o', 'a.fzm'], check=True, capture_output=True)
        outs = []
        for fusion in ['auto', 'force', 'off']:
            subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', 'a.fzm', '-o', 'out.f32', '--fusion', fusion],
                           check=True, capture_output=True)
            outs.append(open('out.f32', 'rb').read())
        assert outs[0] == outs[1] == outs[2], (nx, ny, preset, 'decoders differ')
        got = struct.unpack('<%df' % len(v), outs[0])
        for a, b, ra, rb in zip(vals, got, [raw[4*i:4*i+4] for i in range(len(v))], [outs[0][4*i:4*i+4] for i in range(len(v))]):
            total += 1
            if math.isfinite(a):
                e = abs(a - b)
                worst = max(worst, e)
                if not e <= EB: viol += 1
            elif ra != rb:
                viol += 1
        print(nx, ny, preset, 'auto/force/off identical')
print('values checked %d (x3 decoders, identical), violations %d, max error %r' % (total, viol, worst))

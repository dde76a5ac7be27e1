# Independent float64 check of round 21's `decompress --fusion` on FZMS streams (no
# fzwgpu code, no numpy): ragged 2-D fields with NaN, +-Inf, subnormals and huge values,
# compressed as streams of a few rows per chunk through both chain presets (and szx),
# decoded whole with auto / force / off from the file and from standard input;
# |x - x'| <= eb for every finite value, non-finite values bit-exact, all decodes of a
# stream identical. Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder;
# lavapipe: VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, random
B = sys.argv[1]
random.seed(21)
EB = 1e-3
total = viol = decodes = 0
worst = 0.0
for (nx, ny, rows) in [(41, 330, 8), (91, 300, 7), (1001, 17, 3)]:
    v = []
    for i in range(nx * ny):
        x = math.sin(i * 0.005) * 40.0 + random.random() * 0.2
        k = i % 577
        if k == 3: x = float('nan')
        elif k == 5: x = float('inf')
        elif k == 6: x = float('-inf')
        elif k == 7: x = 1e-42
        elif k == 11: x = -3e38
        v.append(x)
    raw = struct.pack('<%df' % len(v), *v)
    open('in.f32', 'wb').write(raw)
    vals = struct.unpack('<%df' % len(v), raw)
    for preset in ['szp_composed', 'szp_centered', 'szx']:
        subprocess.run([B, 'compress', '--backend', 'wgpu', '-i', 'in.f32', '--dims', '%dx%d' % (nx, ny), '--preset', preset,
                        '--eb', str(EB), '--mode', 'abs', '--chunk-size', str(rows * nx * 4), '-o', 's.fzms'],
                       check=True, capture_output=True)
        outs = []
        for fusion in (['auto', 'force', 'off'] if preset != 'szx' else ['auto', 'off']):
            subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', 's.fzms', '-o', 'out.f32', '--fusion', fusion],
                           check=True, capture_output=True)
            outs.append(open('out.f32', 'rb').read())
            with open('s.fzms', 'rb') as f:
                subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', '-', '-o', 'out.f32', '--fusion', fusion],
                               stdin=f, check=True, capture_output=True)
            outs.append(open('out.f32', 'rb').read())
        assert all(o == outs[0] for o in outs), (nx, ny, preset, 'decodes differ')
        decodes += len(outs)
        got = struct.unpack('<%df' % len(v), outs[0])
        for i, (a, b) in enumerate(zip(vals, got)):
            total += 1
            if math.isfinite(a):
                e = abs(a - b)
                worst = max(worst, e)
                if not e <= EB: viol += 1
            elif raw[4*i:4*i+4] != outs[0][4*i:4*i+4]:
                viol += 1
        print(nx, ny, preset, '%d decodes identical' % len(outs))
print('stream values checked %d (%d decodes, identical per stream), violations %d, max error %r' % (total, decodes, viol, worst))

# Independent float64 check of round 22's chain kernel forms (chain_encode_1d /
# chain_decode_1d for 1-D fields, the 2-D forms without plane_d's second row, the 3-D
# forms): fields with NaN, +-Inf, subnormals and huge values, float32 and float64, in
# 1-D (lengths off every block), 2-D and 3-D rows of whole 32-value units and ragged
# rows, through both chain presets (the one-pass kernels under the default fusion);
# every decode with --fusion auto, force (where the fused inverse takes the field) and
# off must give the same bytes, every finite value |x - x'| <= eb in float64, non-finite
# values bit-exact. No fzwgpu code, no numpy.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder; lavapipe:
# VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, random
import os, tempfile
B = os.path.abspath(sys.argv[1])
# its files (in.raw, a.fzm, out.raw) in a temporary folder, not the checkout
os.chdir(tempfile.mkdtemp(prefix='fzwgpu-check-'))
random.seed(22)
EB = 1e-3
total = viol = 0
worst = 0.0
decodes = 0
for dims, dt in [((100003,), 'f32'), ((4096 * 7 + 5,), 'f64'), ((256, 77), 'f32'), ((64, 300), 'f64'),
                 ((64, 16, 9), 'f32'), ((96, 8, 12), 'f64'), ((41, 33), 'f32')]:
    n = 1
    for d in dims: n *= d
    v = []
    for i in range(n):
        x = math.cos(i * 0.003) * 25.0 + math.sin(i * 0.0007) * 300.0 + random.random() * 0.05
        k = i % 919
        if k == 3: x = float('nan')
        elif k == 5: x = float('inf')
        elif k == 6: x = float('-inf')
        elif k == 7: x = 1e-42 if dt == 'f32' else 1e-310
        elif k == 11: x = 3e38 if dt == 'f32' else 1e300
        v.append(x)
    fmt = '<%d%s' % (n, 'f' if dt == 'f32' else 'd')
    w = 4 if dt == 'f32' else 8
    raw = struct.pack(fmt, *v)
    open('in.raw', 'wb').write(raw)
    vals = struct.unpack(fmt, raw)
    dstr = 'x'.join(str(d) for d in dims)
    for preset in ['szp_composed', 'szp_centered']:
        c = subprocess.run([B, 'compress', '--backend', 'wgpu', '-i', 'in.raw', '--dims', dstr, '--dtype', dt, '--preset', preset,
                            '--eb', str(EB), '--mode', 'abs', '-o', 'a.fzm'], check=True, capture_output=True, text=True)
        outs = []
        for fusion in ['auto', 'force', 'off']:
            d = subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', 'a.fzm', '-o', 'out.raw', '--fusion', fusion],
                               capture_output=True, text=True)
            if d.returncode != 0:
                # force refuses geometries the fused inverse does not take (3-D): one line, status 1
                assert fusion == 'force' and d.returncode == 1 and len(d.stderr.strip().splitlines()) == 1, (dims, preset, d.stderr)
                continue
            outs.append(open('out.raw', 'rb').read())
            decodes += 1
        assert all(o == outs[0] for o in outs), (dims, dt, preset, 'decoders differ')
        got = struct.unpack(fmt, outs[0])
        for i, (a, b) in enumerate(zip(vals, got)):
            total += 1
            if math.isfinite(a):
                e = abs(a - b)
                worst = max(worst, e)
                if not e <= EB: viol += 1
            elif raw[w * i:w * i + w] != outs[0][w * i:w * i + w]:
                viol += 1
        print(dstr, dt, preset, 'decoders identical (%d)' % len(outs), 'ratio %.3f' % (len(raw) / len(open('a.fzm', 'rb').read())))
print('values checked %d (%d decodes, identical per field), violations %d, max error %r' % (total, decodes, viol, worst))

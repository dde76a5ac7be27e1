# Independent float64 check of round 23's chain_decode_planes (form chain_planes: the
# x-y sums of every plane of a 3-D field in one walk, then chain_scan_last's z scan):
# 3-D fields with NaN, +-Inf, subnormals and huge values, float32 and float64, rows of
# whole 32-value units and ragged rows, one and several bands of tile rows, through both
# chain presets; every decode with --fusion auto, force, off, and force with
# FZWGPU_CHAIN_PLANES=on / off (chain_planes / chain_scan) must give the same bytes,
# every finite value |x - x'| <= eb in float64, non-finite values bit-exact. No fzwgpu
# code, no numpy.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder; lavapipe:
# VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, random, os
import os, tempfile
B = os.path.abspath(sys.argv[1])
# its files (in.raw, a.fzm, out.raw) in a temporary folder, not the checkout
os.chdir(tempfile.mkdtemp(prefix='fzwgpu-check-'))
random.seed(23)
EB = 1e-3
total = viol = 0
worst = 0.0
decodes = 0
for dims, dt in [((64, 16, 9), 'f32'), ((96, 8, 12), 'f64'), ((288, 192, 3), 'f32'), ((288, 150, 4), 'f64'),
                 ((91, 13, 9), 'f32'), ((100, 140, 3), 'f64'), ((256, 1, 40), 'f32'), ((8, 8, 128), 'f32')]:
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
        for fusion, planes in [('auto', None), ('force', 'on'), ('force', 'off'), ('off', None)]:
            env = dict(os.environ)
            env.pop('FZWGPU_CHAIN_PLANES', None)
            if planes: env['FZWGPU_CHAIN_PLANES'] = planes
            d = subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', 'a.fzm', '-o', 'out.raw', '--fusion', fusion],
                               capture_output=True, text=True, env=env)
            if d.returncode != 0:
                # force refuses geometries no fused inverse takes: one line, status 1
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
        print(dstr, dt, preset, 'decoders identical (%d)' % len(outs), d.stderr.strip()[:0], 'ratio %.3f' % (len(raw) / len(open('a.fzm', 'rb').read())))
print('values checked %d (%d decodes, identical per field), violations %d, max error %r' % (total, decodes, viol, worst))

# Independent float64 check of round 21's szx_encode8 change (one set of codes per
# lane): fields near 1.0 at a bound of 2.5625 float32 ULPs, where block codes miss the
# bound through the levels' rounding and the quarter-step shift takes over (sometimes
# with one bit more), through the CLI on the GPU backend; |x - x'| <= eb for every
# value, in float64, no fzwgpu code. Usage: python3 THIS.py PATH/TO/fzwgpu, from a
# scratch folder; lavapipe: VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, random
B = sys.argv[1]
random.seed(2)
EB = 2.5625 * 2.0 ** -23
total = viol = 0
worst = 0.0
for (nx, ny) in [(128 * 64, 40), (1000, 77)]:
    v = []
    for b in range((nx * ny + 127) // 128):
        base = 1.0 + random.random()
        k = 1 + b % 6
        span = (2 ** k - 1 + 0.25 + 0.25 * random.random()) * 2 * EB
        v += [base + span * random.random() for _ in range(128)]
    v = v[:nx * ny]
    raw = struct.pack('<%df' % len(v), *v)
    open('in.f32', 'wb').write(raw)
    vals = struct.unpack('<%df' % len(v), raw)
    subprocess.run([B, 'compress', '--backend', 'wgpu', '-i', 'in.f32', '--dims', '%dx%d' % (nx, ny), '--preset', 'szx',
                    '--eb', repr(EB), '--mode', 'abs', '-o', 'a.fzm'], check=True, capture_output=True)
    subprocess.run([B, 'decompress', '--backend', 'wgpu', '-i', 'a.fzm', '-o', 'out.f32'], check=True, capture_output=True)
    got = struct.unpack('<%df' % len(v), open('out.f32', 'rb').read())
    for a, b in zip(vals, got):
        total += 1
        e = abs(a - b)
        worst = max(worst, e)
        if not e <= EB: viol += 1
    print(nx, ny, 'ratio %.3f' % (len(raw) / len(open('a.fzm', 'rb').read())))
print('szx values checked %d at eb %r, violations %d, max error %r' % (total, EB, viol, worst))

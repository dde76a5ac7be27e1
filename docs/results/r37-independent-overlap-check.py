# Independent float64 check of fzwgpu's CLI with round 37's overlapped transfers
# (FZWGPU_OVERLAP=on, small chunks so a few-MiB field overlaps): the archive must be
# the plain one's bytes, its decode through the overlapped path the plain decode's
# bytes, and every finite value within the NOA bound computed here in float64 (NaN and
# infinities kept exactly). Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch
# folder, with the lavapipe environment (VK_DRIVER_FILES=... WGPU_BACKEND=vulkan).
import math, os, random, struct, subprocess, sys
B = sys.argv[1]
random.seed(37)
n = 1_500_001  # 6 MB of float32: overlapped in chunks of 1 MiB
vals = []
for i in range(n):
    x = math.sin(i * 0.0007) * 300.0 + math.cos(i * 0.013) * 2.0 + random.uniform(-0.01, 0.01)
    if i % 99_991 == 7: x = float('nan')
    if i % 199_999 == 11: x = float('inf')
    if i % 250_007 == 3: x = -0.0
    vals.append(x)
raw = struct.pack(f'<{n}f', *vals)
f32 = struct.unpack(f'<{n}f', raw)
open('in.f32', 'wb').write(raw)
fin = [v for v in f32 if math.isfinite(v)]
eb = 1e-3 * (max(fin) - min(fin))
def run(env, args):
    e = dict(os.environ); e.update(env)
    r = subprocess.run([B] + args, capture_output=True, text=True, env=e)
    if r.returncode: print('failed', args, r.stderr); sys.exit(1)
on = {'FZWGPU_OVERLAP': 'on', 'FZWGPU_OVERLAP_CHUNK': '1M'}
off = {'FZWGPU_OVERLAP': 'off'}
bad = checked = 0
for be in ["wgpu"]:  # the cpu backend never overlaps by the environment (only by RunOptions)
    run(on, ['compress', '-i', 'in.f32', '-o', f'on-{be}.fzm', '--dims', str(n), '--preset', 'szx', '--eb', '1e-3', '--mode', 'noa', '--backend', be])
    run(off, ['compress', '-i', 'in.f32', '-o', f'off-{be}.fzm', '--dims', str(n), '--preset', 'szx', '--eb', '1e-3', '--mode', 'noa', '--backend', be])
    same = open(f'on-{be}.fzm', 'rb').read() == open(f'off-{be}.fzm', 'rb').read()
    run(on, ['decompress', '-i', f'on-{be}.fzm', '-o', f'on-{be}.f32', '--backend', be])
    run(off, ['decompress', '-i', f'off-{be}.fzm', '-o', f'off-{be}.f32', '--backend', be])
    dsame = open(f'on-{be}.f32', 'rb').read() == open(f'off-{be}.f32', 'rb').read()
    out = struct.unpack(f'<{n}f', open(f'on-{be}.f32', 'rb').read())
    for a, b in zip(f32, out):
        if math.isfinite(a):
            checked += 1
            if not abs(a - b) <= eb: bad += 1
        elif not (struct.pack('<f', a) == struct.pack('<f', b)):
            bad += 1
    print(f'{be}: archive overlapped == plain: {same}, decode overlapped == plain: {dsame}, eb {eb:.6g}')
print(f'values checked {checked}, violations {bad}')

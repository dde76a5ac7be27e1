# Independent float64 check on a field large enough for auto to decode ragged rows with
# chain_decode_ragged (>= 4096 invocations): 1001 x 16400, with NaN/Inf/subnormal/huge.
# Usage: python3 THIS.py PATH/TO/fzwgpu, from a scratch folder (temporary files go to the
# current directory); lavapipe: VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan.
import struct, subprocess, sys, math, array, os
B = sys.argv[1]; nx, ny = 1001, 16400; n = nx * ny
a = array.array('f', (math.sin(i * 0.0013) * 40.0 + (i % 7) * 0.01 for i in range(n)))
for i in range(3, n, 9973): a[i] = float('nan')
for i in range(5, n, 9973): a[i] = float('inf')
for i in range(6, n, 9973): a[i] = float('-inf')
for i in range(7, n, 9973): a[i] = 1e-42
for i in range(11, n, 9973): a[i] = 3e38
open('big.f32', 'wb').write(a.tobytes())
raw = a.tobytes()
for preset in ['szp_composed', 'szp_centered']:
    eb = 1e-3
    r = subprocess.run([B, 'eval', '-i', 'big.f32', '--dims', f'{nx}x{ny}', '--preset', preset, '--eb', str(eb), '--mode', 'abs', '--backend', 'wgpu', '--json', '--repeat', '1'], capture_output=True, text=True)
    notes = [x for x in r.stdout.split('"') if x.startswith('pipeline:')]
    for cmd in (['compress', '-i', 'big.f32', '-o', 'big.fzm', '--dims', f'{nx}x{ny}', '--preset', preset, '--eb', str(eb), '--mode', 'abs', '--backend', 'wgpu'],
                ['decompress', '-i', 'big.fzm', '-o', 'bigout.f32', '--backend', 'wgpu']):
        r = subprocess.run([B] + cmd, capture_output=True, text=True)
        if r.returncode: print('failed', cmd[0], r.stderr); sys.exit(1)
    outb = open('bigout.f32', 'rb').read()
    o = array.array('f'); o.frombytes(outb)
    viol = 0; worst = 0.0
    for j in range(n):
        x = a[j]; y = o[j]
        if math.isfinite(x):
            d = abs(x - y)
            if d > worst: worst = d
            if not (d <= eb): viol += 1
        elif raw[4*j:4*j+4] != outb[4*j:4*j+4]:
            viol += 1
    print(preset, notes, f'values {n}, violations {viol}, max error {worst!r}')
    if viol: sys.exit(1)

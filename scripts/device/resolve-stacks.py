#!/usr/bin/env python3
"""Resolve the test binary's frames in eu-stack output (setup.sh's `watched` prints it
for a hung binary; the kit's binaries are stripped). Usage:
  python3 scripts/device/resolve-stacks.py LOG UNSTRIPPED-BINARY > resolved.txt
UNSTRIPPED-BINARY: the same build as the kit's: kit.sh keeps the unstripped binaries in
target/kit-unstripped/ (with the kit's commit) until the next kit. Each
process block (a "PID n - process" line) gets its load base from its main thread's
_start frame (the frame after __libc_start_main); frames of other objects stay as
they are. Needs addr2line (binutils) and nm."""
import re, subprocess, sys

log, binary = sys.argv[1], sys.argv[2]
start = next(int(l.split()[0], 16) for l in subprocess.run(["nm", binary], capture_output=True, text=True).stdout.splitlines() if l.endswith(" T _start"))
frame = re.compile(r"(#\d+)\s+0x([0-9a-f]+)(.*)")
lines = open(log, errors="replace").read().splitlines()
base = None
for i, l in enumerate(lines):
    if l.startswith("PID "):
        base = None
        for j in range(i, len(lines)):
            if "__libc_start_main" in lines[j] and j + 1 < len(lines):
                m = frame.match(lines[j + 1])
                if m:
                    a = int(m.group(2), 16)
                    # _start's return address lies a few bytes into _start; the base is page aligned
                    base = next((a - start - d for d in range(0, 64) if (a - start - d) % 4096 == 0), None)
                break
    m = frame.match(l)
    if m and base is not None:
        a = int(m.group(2), 16)
        if base <= a < base + (1 << 32):
            fn = subprocess.run(["addr2line", "-f", "-C", "-e", binary, hex(a - base - 1)], capture_output=True, text=True).stdout.split("\n")[0]
            print(f"{m.group(1)} {fn[:160]}")
            continue
    print(l)

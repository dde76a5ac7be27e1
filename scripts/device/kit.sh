#!/bin/bash
# Assemble .device/ (gitignored) for runs on the H200 through the device tool: the CLI
# and every test binary of this checkout built with --features cuda (stripped; packed
# with a 192 MiB xz window, so the test binaries' shared code is stored once), the
# optional CLIs of other commits or of this tree with a patch applied (KIT_B=<rev> or
# KIT_B=scripts/device/patches/<name>.patch, packed as fzwgpu-b, with vkstats-b for a
# patch; KIT_C, KIT_D and KIT_E likewise as fzwgpu-c, fzwgpu-d and fzwgpu-e), the real fields,
# the Vulkan loader set-up from ../shared/device, and the scripts in scripts/device/.
# Usage (from the project root): bash scripts/device/kit.sh   (3-6 minutes here)
# Then call the device tool's run with carry [".device"] and e.g.
#   bash .device/next-r10a.sh 2>&1 | tee $OUT/r10a.log
# The carry limit is 64 MiB with the working tree (~25 MB): the kit is ~30 MB.
set -euo pipefail
root=$(pwd); stage=$(mktemp -d)
exclude=$(git rev-parse --git-path info/exclude)   # also right in a git worktree
mkdir -p "$(dirname "$exclude")"; grep -qx "/.device/" "$exclude" 2>/dev/null || echo "/.device/" >> "$exclude"
build() { # output suffix
  cargo test --release --features cuda --no-run 2>&1 | grep -oE "(tests/[a-z_]+\.rs|src/lib\.rs) \(target/release/deps/[^)]+" | while read -r src bin; do
    n=$(basename "$src" .rs); [ "$n" = lib ] && n=lib
    cp "${bin#(}" "$stage/$n$1"
  done
  cargo build --release --features cuda 2>&1 | tail -1
  cp target/release/fzwgpu "$stage/fzwgpu$1"
}
build ""
# the cost of registering host memory with CUDA (examples/cuda_host_register.rs)
cargo build --release --features cuda --example cuda_host_register 2>&1 | tail -1
cp target/release/examples/cuda_host_register "$stage/cuda-host-register"
# the host-memory probe (no dependencies)
rustc -O --edition 2021 scripts/device/probes/hostmem.rs -o "$stage/hostmem-probe"
# memcpy by source alignment (the CUDA archive upload's gap, round 42)
gcc -O2 -pthread scripts/device/probes/memcpy-align.c -o "$stage/memcpy-align"
# the Vulkan driver's statistics of the kernels (scripts/device/probes/vkstats: its own
# crate, default features, built into this target directory as scripts/test.sh does)
(cd scripts/device/probes/vkstats && CARGO_TARGET_DIR="$root/target" cargo build --release 2>&1 | tail -1)
cp target/release/vkstats "$stage/vkstats"
# kernels over host memory against DMA copies (scripts/device/probes/zerocopy)
(cd scripts/device/probes/zerocopy && CARGO_TARGET_DIR="$root/target" cargo build --release 2>&1 | tail -1)
cp target/release/zerocopy-probe "$stage/zerocopy-probe"
# eu-stack (elfutils, with its two libraries) for the thread stacks of a test binary
# that hangs on the device (setup.sh's watched; the device has no gdb)
tools=$(mktemp -d)
if (cd "$tools" && apt-get download elfutils libdw1 libelf1 > /dev/null 2>&1 && for d in *.deb; do dpkg-deb -x "$d" x; done); then
  cp "$tools/x/usr/bin/eu-stack" "$tools"/x/usr/lib/x86_64-linux-gnu/lib{dw,elf}.so.1 "$stage/"
else
  echo "no eu-stack (apt-get download failed): a hung binary's threads get kernel stacks only"
fi
rm -rf "$tools"
# another CLI per KIT_B / KIT_C / KIT_D / KIT_E (fzwgpu-b ... fzwgpu-e)
for kv in "b:${KIT_B:-}" "c:${KIT_C:-}" "d:${KIT_D:-}" "e:${KIT_E:-}"; do
  suf=${kv%%:*}; what=${kv#*:}
  [ -n "$what" ] || continue
  if [ -f "$what" ]; then
    # a patch file (scripts/device/patches/): applied to this tree for one build, then
    # reverted (branches do not survive into a new checkout; patches in the repo do)
    git apply --check "$what"
    git apply "$what"; trap 'git apply -R "$what"' EXIT
    cargo build --release --features cuda 2>&1 | tail -1; cp target/release/fzwgpu "$stage/fzwgpu-$suf"
    # the Vulkan driver's statistics of the patched kernels too (vkstats-b ...)
    (cd scripts/device/probes/vkstats && CARGO_TARGET_DIR="$root/target" cargo build --release 2>&1 | tail -1)
    cp target/release/vkstats "$stage/vkstats-$suf"
    git apply -R "$what"; trap - EXIT
  else
    # back to the branch, or to the commit where HEAD was detached (a worktree)
    cur=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD); git checkout -q "$what"
    cargo build --release --features cuda 2>&1 | tail -1; cp target/release/fzwgpu "$stage/fzwgpu-$suf"
    git checkout -q "$cur"
  fi
done
# the variants' builds leave target/ as the last one's: build main again, so that
# target/release/fzwgpu is main's (local runs after the kit use it)
cargo build --release 2>&1 | tail -1
# the unstripped binaries stay here (target/kit-unstripped/, replaced by the next kit),
# for resolve-stacks.py on a hung binary's eu-stack output
rm -rf target/kit-unstripped && mkdir -p target/kit-unstripped && cp "$stage"/* target/kit-unstripped/
git rev-parse --short HEAD > target/kit-unstripped/KIT_COMMIT
strip "$stage"/*
chmod -R u+w .device 2>/dev/null || true; rm -rf .device && mkdir -p .device
cp -r ../shared/device/* .device/
cp scripts/device/*.sh .device/
(cd "$stage" && tar cf - * | xz -T1 --lzma2=preset=9,dict=192MiB > "$root/.device/kit.tar.xz")
tar cJf .device/data.tar.xz -C ../shared/data .
git rev-parse --short HEAD > .device/KIT_COMMIT
rm -rf "$stage"
du -sh .device

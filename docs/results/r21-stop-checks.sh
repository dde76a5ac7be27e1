#!/bin/bash
# Round 21 stop checks: each bad input must exit 1 with one typed error line and leave
# no output file. Run from the repository root after `cargo build --release`, with
# lavapipe: XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan
B=${B:-target/release/fzwgpu}; D=../shared/data/cesm_camfv_TS_10x192x288.f32; T=$(mktemp -d)
chk() { # label, then the command; expects exit 1 and no $T/out*
  local l=$1; shift; rm -f $T/out*
  "$@" > $T/log 2>&1; local rc=$?
  local left=$(ls $T/out* 2>/dev/null | wc -l)
  echo "$l: rc=$rc outputs-left=$left | $(tail -1 $T/log | cut -c1-170)"
}
for p in szx szp_composed; do
  $B compress -i $D -o $T/$p.fzm --dims 288x192x10 --preset $p --eb 1e-3 --backend wgpu 2>/dev/null
  head -c 3000 $T/$p.fzm > $T/$p-trunc.fzm
  python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[len(b)//2]^=0x40; open(sys.argv[2],'wb').write(b)" $T/$p.fzm $T/$p-flip.fzm
  # the header says fewer bytes than there are (a truncated meta region behind a valid CRC is the fuzzer's job)
  chk "$p truncated archive" $B decompress -i $T/$p-trunc.fzm -o $T/out --backend wgpu
  chk "$p flipped payload byte" $B decompress -i $T/$p-flip.fzm -o $T/out --backend wgpu
done
head -c 4096 /dev/urandom > $T/rand.fzm
chk "random bytes" $B decompress -i $T/rand.fzm -o $T/out --backend wgpu
chk "wrong dims" $B compress -i $D -o $T/out --dims 288x192x11 --preset szx --backend wgpu
for eb in 0 -1 NaN inf; do chk "eb $eb" $B compress -i $D -o $T/out --dims 288x192x10 --preset szx --eb $eb --backend wgpu; done
printf '[pipeline]\nbogus = 1\n' > $T/bad.toml
chk "unknown TOML key" $B compress -i $D -o $T/out --dims 288x192x10 --config $T/bad.toml --backend wgpu
chk "decompress --fusion force on szx" $B decompress -i $T/szx.fzm -o $T/out --backend wgpu --fusion force
# streams (round 21: --fusion reaches every chunk)
$B compress -i $D -o $T/s.fzms --dims 288x192x10 --preset szx --eb 1e-3 --chunk-size 300K --backend wgpu 2>/dev/null
chk "stream --fusion force on szx chunks" $B decompress -i $T/s.fzms -o $T/out --backend wgpu --fusion force
head -c 100000 $T/s.fzms > $T/s-trunc.fzms
chk "truncated stream" $B decompress -i $T/s-trunc.fzms -o $T/out --backend wgpu
chk "truncated stream from stdin" sh -c "$B decompress -i - -o $T/out --backend wgpu < $T/s-trunc.fzms"
chk "no adapter" env VK_DRIVER_FILES=/nonexistent.json $B compress -i $D -o $T/out --dims 288x192x10 --preset szx --backend wgpu
# NaN/Inf in the data are not an error: kept bit-exact (checked by r19-independent-check.py)
rm -rf $T

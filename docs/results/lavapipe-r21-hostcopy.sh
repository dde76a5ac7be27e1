# Round 21, lavapipe (2 cores): decoding without the host copy of the archive's
# metadata (fzwgpu-after) against its parent commit (fzwgpu-before: "bench --json:
# each phase ... median"), alternating, two rounds; szx on the 1 GiB smooth field,
# end to end, phases as medians of 7 repetitions in the JSON records
# (lavapipe-r21-hostcopy-before.jsonl / -after.jsonl).
export XDG_RUNTIME_DIR=/tmp VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json WGPU_BACKEND=vulkan
for round in 1 2; do for v in before after; do
  ./fzwgpu-$v bench --backend wgpu --size 1G --fields smooth --presets szx --reps 7 --replays 1 --json lavapipe-r21-hostcopy-$v.jsonl
done; done

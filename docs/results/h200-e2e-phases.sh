source .device/vulkan-env.sh
B=.device/fzwgpu
$B bench --size 1G --reps 3 --replays 5 --presets szx,szp_composed,szp_centered --json $OUT/e2e2.jsonl 2>&1 | grep -E "^sz|copy"
$B bench --dims 268435456 --reps 3 --replays 5 --presets szp_centered --json $OUT/e2e2.jsonl 2>&1 | grep -E "^sz|copy"
python3 -c "
import json
for l in open('$OUT/e2e2.jsonl'):
  r=json.loads(l); print(r['preset'], r['dims'], 'C', {k:round(v,4) for k,v in r['compress_phases_s'].items()}, 'D', {k:round(v,4) for k,v in r['decompress_phases_s'].items()})"

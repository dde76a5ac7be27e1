#!/bin/bash
# Round 36, call c. Kit (main with the one-pass SZx encoder, e3474f8 or later):
#   KIT_B=scripts/device/patches/szx-fewer-exchanges.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# The one-pass encoder (szx_encode8_lb + szx_encode8_fix, FZWGPU_SZX_ONEPASS=on; one
# binary, so the A/B is the variable) against main's szx_encode8 + scan + szx_compact:
# 1. the Vulkan driver's registers of szx_encode8, szx_encode8_lb, szx_encode8_fix
# 2. the kernels test binary through CUDA and Vulkan (its one-pass tests: forced
#    deferral, inclusive prefixes ignored, against the twins and the two-pass payload)
# 3. szx kernel GB/s on the 1 GiB 2-D field, main / one-pass alternated twice per backend
# 4. validation.sh of the one-pass szx through both backends (byte for byte with the
#    cpu backend on every real field)
# 5. per-dispatch profile of the one-pass 2-D szx through Vulkan (szx_encode8_fix's
#    time says whether tiles deferred: without, each workgroup returns at once)
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
printf '#!/bin/bash\nFZWGPU_SZX_ONEPASS=on exec /tmp/ct/fzwgpu "$@"\n' > /tmp/ct/fzwgpu-lb && chmod +x /tmp/ct/fzwgpu-lb
timeout 60 /tmp/ct/vkstats szx_encode8 szx_encode8_lb szx_encode8_fix > $OUT/r36c-vkstats.txt 2>&1
grep -E "robust \[" $OUT/r36c-vkstats.txt | grep -v "no-" | cut -c1-90
tests_on "kernels" 200 150
for be in wgpu cuda; do for r in 1 2; do for x in fzwgpu fzwgpu-lb; do
  bench_line r36c 400 $x $be "--size 1G --fields smooth" 2d szx
done; done; done
VAL_LEFT=430 val r36c-lb /tmp/ct/fzwgpu-lb szx 80
left 520 && prof "one-pass wgpu 2-D szx" fzwgpu-lb --backend wgpu --size 1G --fields smooth --presets szx
echo "total $(( $(date +%s) - T0 )) s"

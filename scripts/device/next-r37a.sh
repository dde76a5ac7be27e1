#!/bin/bash
# Prepared in round 36 for the next round (not yet run). Kit (main):
#   KIT_B=scripts/device/patches/szx-one-code-path.patch bash scripts/device/kit.sh
# then cp scripts/device/profile-summary.py .device/. Runs on whatever card comes.
# b: szx_encode8 with one value-by-value code path for flushing and flush-free blocks
#    (unit_codes_one / unit_const_ok_one in shaders/common/szx_units.wgsl: the
#    flush-free block's vector tests first, then the flushing path, whose codes equal
#    code_of_nf's there), so the kernel holds 4 value-by-value unit paths instead of 8
#    (+4 for the retry) and a subgroup whose blocks differ in kind does not run both.
#    Hypothesis: smaller code (vkstats' Binary Size: main 113536 bytes on the H100) and
#    less reconvergence (round 18's ncu: 39% of a warp's cycles waiting on instruction
#    fetch, BSYNC 15% of stall samples). Lavapipe: the kernel twin tests pass. The
#    SPIR-V says nothing here (9590 -> 9797 words: naga emits every function of the
#    module, the now-unused flush-free ones too, and calls rather than inlines); the
#    driver's inlined Binary Size from vkstats-b is the measure.
# szx_ab (setup.sh): registers and binary size, 2-D main / b alternated twice per
# backend, validation.sh of b, the 1-D and tiled fields, profiles.
source .device/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
szx_ab r37a
echo "total $(( $(date +%s) - T0 )) s"

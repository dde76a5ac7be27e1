#!/bin/bash
# Round 14, call 2 (prepared 2026-12-04, not yet run; same kit as call 1): end to end
# after decoding started to check the payload CRC beside the uploads (host.parse was
# 1.7 ms of szx's 1 GiB 2-D decompression in r13a; new phase host.verify), then the
# whole suite (suite.sh, with `watched` for the faults binary's rare hang).
source .device/setup.sh
E2E_LEFT=130 e2e r14b szx,szp_composed,szp_centered
echo "e2e total $(( $(date +%s) - T0 )) s"
SUITE_LEFT=${SUITE_LEFT:-420} bash .device/suite.sh

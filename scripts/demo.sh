#!/usr/bin/env bash
# Set up (scripts/setup.sh), build, and run `fzwgpu demo` on the best adapter.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cargo build --release
exec target/release/fzwgpu demo "$@"

#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for fzwgpu: a Vulkan loader and Mesa's
# lavapipe (software Vulkan) when no Vulkan driver is installed, EGL and Mesa's llvmpipe
# GL driver (the tests' GL pass), a C toolchain, and
# Rust (rustup) when cargo is missing. Safe to run again.
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
need=()
[ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] || [ -e /usr/lib/aarch64-linux-gnu/libvulkan.so.1 ] || ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 || need+=(libvulkan1)
# lavapipe: the tests pin it (scripts/test.sh), whatever other driver is installed
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
# Mesa's llvmpipe through EGL: the tests' GL pass (scripts/test.sh)
ldconfig -p 2>/dev/null | grep -q "libEGL.so.1 " || need+=(libegl1)
ldconfig -p 2>/dev/null | grep -q libEGL_mesa.so.0 || need+=(libegl-mesa0)
ls /usr/lib/*/dri/swrast_dri.so >/dev/null 2>&1 || need+=(libgl1-mesa-dri)
command -v cc >/dev/null 2>&1 || need+=(build-essential)
command -v curl >/dev/null 2>&1 || need+=(curl ca-certificates)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: installing Rust with rustup"
    curl -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

#!/usr/bin/env bash
# Installs what fw needs to build and test on Debian 12 (bookworm): LLVM/MLIR 22,
# clang and lld 22, CLI11, GoogleTest, CMake, Ninja, numpy for the test
# references, the AMD device libraries (AMD code objects), the HIP headers
# (checked against the runtime's HIP device) and valgrind (tests that nothing
# leaks). Safe to run again: it only installs what is missing.
set -euo pipefail

packages=(
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22 libclang-rt-22-dev
  libcli11-dev
  nlohmann-json3-dev libgtest-dev build-essential cmake ninja-build python3-numpy
  rocm-device-libs libamdhip64-dev valgrind
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"

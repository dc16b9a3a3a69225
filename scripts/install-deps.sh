#!/usr/bin/env bash
# Installs the Debian packages frugal needs to build and test. Idempotent:
# does nothing when every package is already installed. Run as root (or with
# sudo available).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config python3
  libonnx-dev libprotobuf-dev protobuf-compiler
  libonnx-testdata  # ONNX node-test models for the slow import test
  nlohmann-json3-dev
  libcli11-dev
  libxgboost-dev
  libeigen3-dev
  coinor-libcbc-dev
  libmetis-dev
  libfmt-dev
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  clang libclang-rt-14-dev
  python3-torch python3-torchvision  # tools/check_device_map.py in cli_device_map_test
  libfuse3-dev fuse3  # frugal cache mount; cli_cache_mount_test
  libzstd-dev  # zstd-compressed oracleGeneral traces (libCacheSim publishes them as .zst)
  libcpp-httplib-dev  # frugal share extender (Kubernetes scheduler extender)
  chromium python3-pil  # the browser test renders frugal's HTML report headless
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"

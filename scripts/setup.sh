#!/usr/bin/env bash
# Installs what cublasspy needs to build and test, from Debian's packages, skipping what is
# already there. The CUDA toolkit (headers; cuBLAS/cudart at run time) is expected in
# /usr/local/cuda (NVIDIA's installer or image); it cannot come from here.
set -euo pipefail

packages=(cmake make g++ libspdlog-dev libfmt-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
          libgtest-dev libbenchmark-dev python3 libpython3-dev clang libclang-rt-14-dev
          debootstrap equivs binutils util-linux
          python3-build python3-setuptools python3-wheel)  # the wheel (cmake/Packaging.cmake)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ ! -f "${CUDA_HOME:-/usr/local/cuda}/include/cublas_v2.h" ]; then
  echo "setup: the CUDA toolkit headers were not found in ${CUDA_HOME:-/usr/local/cuda}/include;" >&2
  echo "       install NVIDIA's CUDA toolkit (12 or 13) or set CUDA_HOME." >&2
  exit 1
fi

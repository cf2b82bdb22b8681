#!/bin/sh
# Inside the overlay of the PyTorch root (test_deb.py): install the .deb, then use the installed
# tool. Each step's output and status go to /out for the test to judge.
# Usage: deb_inside.sh <package.deb>
set -u
cd /tmp
dpkg -i "$1" >/out/dpkg.log 2>&1; echo $? >/out/dpkg.rc
command -v cublasspy >/out/which 2>&1
cublasspy --version >/out/version 2>/out/version.err; echo $? >/out/version.rc
cublasspy doctor --json >/out/doctor.json 2>/out/doctor.err; echo $? >/out/doctor.rc
# The installed shim, found by the installed tool: a ctypes program asks cudart 12 for devices.
CUBLASSPY_TRACE=/out/deb-%p.cbt cublasspy run -- python3 -c \
  'import ctypes; n = ctypes.c_int(); ctypes.CDLL("libcudart.so.12").cudaGetDeviceCount(ctypes.byref(n))' \
  >/out/run.out 2>/out/run.err; echo $? >/out/run.rc
cublasspy report --json --all /out/deb-*.cbt >/out/report.json 2>/out/report.err; echo $? >/out/report.rc
exit 0

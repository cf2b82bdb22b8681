#!/bin/sh
# Inside the overlay of the PyTorch root (test_wheel.py): a venv that sees the root's PyTorch,
# the wheel installed into it with pip from the file (no index), then the same PyTorch script
# under the wheel's cublasspy and under the host build's (bound at its own path). Each step's
# output and status go to /out.
# Usage: wheel_inside.sh <package.whl> <host build directory>
set -u
cd /tmp
python3 -m venv --system-site-packages /opt/venv >/out/venv.log 2>&1; echo $? >/out/venv.rc
/opt/venv/bin/pip install --no-index --no-cache-dir "$1" >/out/pip.log 2>&1; echo $? >/out/pip.rc
export PATH=/opt/venv/bin:$PATH
command -v cublasspy >/out/which 2>&1
cublasspy --version >/out/version 2>&1
python3 -m cublasspy --version >/out/module-version 2>&1
python3 -c 'import cublasspy; print(cublasspy.shim_path())' >/out/shim-path 2>&1
cp /cublasspy-packaging/torch_script.py /tmp/script.py
mkdir /tmp/wheel /tmp/host
(cd /tmp/wheel && CUBLASSPY_TRACE=/out/wheel-%p.cbt cublasspy run -- python3 /tmp/script.py \
  >/out/wheel-run.out 2>/out/wheel-run.err; echo $? >/out/wheel-run.rc)
(cd /tmp/host && CUBLASSPY_TRACE=/out/host-%p.cbt "$2/bin/cublasspy" run -- python3 /tmp/script.py \
  >/out/host-run.out 2>/out/host-run.err; echo $? >/out/host-run.rc)
cublasspy report --json --all /out/wheel-*.cbt >/out/wheel-report.json 2>/out/wheel-report.err
"$2/bin/cublasspy" report --json --all /out/host-*.cbt >/out/host-report.json 2>/out/host-report.err
cublasspy report /out/wheel-*.cbt >/out/wheel-report.txt 2>&1; echo $? >/out/wheel-report.rc
"$2/bin/cublasspy" report /out/host-*.cbt >/out/host-report.txt 2>&1; echo $? >/out/host-report.rc
exit 0

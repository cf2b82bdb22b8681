#!/bin/sh
# Compares the stand-in's dynamic symbols with the real libraries':
#  1. every exported symbol carries the real library's version (cublasSgemm_v2@@libcublas.so.13),
#     and libcuda.so.1 exports unversioned names, like the real driver;
#  2. every GEMM entry point of the real libcublas.so.13 (cublasXt* and cublasUint8gemmBias
#     aside) is exported by the stand-in;
#  3. the stand-in exports no name the real library lacks (a typo would go unnoticed otherwise),
#     except its private standin_* interface in libcuda.so.1.
# Usage: check_exports.sh <stand-in dir> <real CUDA lib dir>
set -eu
standin=$1
real=$2
fail=0

exports() {  # name@@version of every defined dynamic symbol
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 != "" && NR > 3 { print $8 }' | grep -v '^lib' | sort -u
}

for lib in libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do
  unversioned=$(exports "$standin/$lib" | grep -v "@@$lib\$" || true)
  if [ -n "$unversioned" ]; then
    echo "FAIL: $lib exports symbols outside version $lib: $unversioned"
    fail=1
  fi
  missing=$(exports "$standin/$lib" | sed 's/@@.*//' | while read -r sym; do
    exports "$real/$lib" | grep -qx "$sym@@$lib" || echo "$sym"
  done)
  if [ -n "$missing" ]; then
    echo "FAIL: $lib exports names the real $lib does not have: $missing"
    fail=1
  fi
done

for sym in cublasSgemm_v2@@libcublas.so.13 cublasGemmEx@@libcublas.so.13 cublasSgemm@@libcublas.so.13 \
           cublasLtMatmul@@libcublasLt.so.13 cudaMalloc@@libcudart.so.13 cudaGetDeviceCount@@libcudart.so.13; do
  lib=${sym#*@@}
  exports "$standin/$lib" | grep -qx "$sym" || { echo "FAIL: $sym not exported"; fail=1; }
done

if exports "$standin/libcuda.so.1" | grep -q '@'; then
  echo "FAIL: libcuda.so.1 exports versioned symbols"
  fail=1
fi
for sym in cuInit cuGetProcAddress_v2 cuGetProcAddress cuMemAlloc_v2 cuPointerGetAttribute; do
  exports "$standin/libcuda.so.1" | grep -qx "$sym" || { echo "FAIL: libcuda.so.1 lacks $sym"; fail=1; }
done
if [ -f "$real/stubs/libcuda.so" ]; then
  extra=$(exports "$standin/libcuda.so.1" | grep -v '^standin_' | while read -r sym; do
    exports "$real/stubs/libcuda.so" | grep -qx "$sym" || echo "$sym"
  done)
  [ -z "$extra" ] || { echo "FAIL: libcuda.so.1 exports names the driver does not have: $extra"; fail=1; }
fi

gemms=$(exports "$real/libcublas.so.13" | grep -i gemm | grep -v -e '^cublasXt' -e '^cublasUint8gemmBias')
count=0
for sym in $gemms; do
  count=$((count + 1))
  exports "$standin/libcublas.so.13" | grep -qx "$sym" || { echo "FAIL: GEMM entry point missing: $sym"; fail=1; }
done
echo "checked $count GEMM entry points"
[ "$fail" -eq 0 ] && echo "exports ok"
exit "$fail"

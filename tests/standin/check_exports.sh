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
export LC_ALL=C
standin=$1
real=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name@@version of every defined dynamic symbol, sorted, into $tmp/<name>
exports() {
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 != "" && NR > 3 { print $8 }' | grep -v '^lib' | sort -u > "$tmp/$2"
}

for lib in libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do
  exports "$standin/$lib" standin
  exports "$real/$lib" real
  unversioned=$(grep -v "@@$lib\$" "$tmp/standin" || true)
  [ -z "$unversioned" ] || { echo "FAIL: $lib exports symbols outside version $lib:" $unversioned; fail=1; }
  extra=$(comm -23 "$tmp/standin" "$tmp/real")
  [ -z "$extra" ] || { echo "FAIL: $lib exports names the real $lib does not have:" $extra; fail=1; }
  echo "$lib: $(wc -l < "$tmp/standin") symbols, all under version $lib"
  if [ "$lib" = libcublas.so.13 ]; then
    grep -i gemm "$tmp/real" | grep -v -e '^cublasXt' -e '^cublasUint8gemmBias' > "$tmp/gemms"
    missing=$(comm -23 "$tmp/gemms" "$tmp/standin")
    [ -z "$missing" ] || { echo "FAIL: GEMM entry points missing:" $missing; fail=1; }
    echo "libcublas.so.13: all $(wc -l < "$tmp/gemms") GEMM entry points of the real library present"
  fi
done

for sym in cublasSgemm_v2@@libcublas.so.13 cublasGemmEx@@libcublas.so.13 cublasSgemm@@libcublas.so.13 \
           cublasLtMatmul@@libcublasLt.so.13 cudaMalloc@@libcudart.so.13 cudaGetDeviceCount@@libcudart.so.13; do
  lib=${sym#*@@}
  exports "$standin/$lib" standin
  grep -qx "$sym" "$tmp/standin" || { echo "FAIL: $sym not exported"; fail=1; }
done

exports "$standin/libcuda.so.1" standin
if grep -q '@' "$tmp/standin"; then
  echo "FAIL: libcuda.so.1 exports versioned symbols"
  fail=1
fi
for sym in cuInit cuGetProcAddress_v2 cuGetProcAddress cuMemAlloc_v2 cuPointerGetAttribute; do
  grep -qx "$sym" "$tmp/standin" || { echo "FAIL: libcuda.so.1 lacks $sym"; fail=1; }
done
if [ -f "$real/stubs/libcuda.so" ]; then
  exports "$real/stubs/libcuda.so" real
  extra=$(grep -v '^standin_' "$tmp/standin" | comm -23 - "$tmp/real")
  [ -z "$extra" ] || { echo "FAIL: libcuda.so.1 exports names the driver does not have:" $extra; fail=1; }
fi
echo "libcuda.so.1: $(wc -l < "$tmp/standin") symbols, unversioned"
[ "$fail" -eq 0 ] && echo "exports ok"
exit "$fail"

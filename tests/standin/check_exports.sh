#!/bin/sh
# Compares a stand-in stack's dynamic symbols with the real libraries' of the same CUDA major:
#  1. every exported symbol carries the real library's version (cublasSgemm_v2@@libcublas.so.13),
#     and libcuda.so.1 exports unversioned names, like the real driver;
#  2. every GEMM entry point of the real libcublas (cublasXt* and cublasUint8gemmBias aside) is
#     exported by the stand-in;
#  3. the stand-in exports no name the real library lacks (a typo would go unnoticed otherwise),
#     except its private standin_* interface in libcuda.so.1;
#  4. with --imports-of: every symbol those ELF files import from libcudart/libcublas/libcublasLt
#     of this major (name@libcublas.so.12 in `nm -D --undefined-only`) is exported by the
#     stand-in under that version node, so a program linked -z now against the real libraries
#     (PyTorch is) loads on the stand-in.
# Usage: check_exports.sh <major> <stand-in dir> <real lib dir> [--driver <real libcuda>]
#                         [--imports-of <elf>...]
# The real driver defaults to <real lib dir>/stubs/libcuda.so (the toolkit's stub), when present.
set -eu
export LC_ALL=C
major=$1
standin=$2
real=$3
shift 3
driver="$real/stubs/libcuda.so"
importers=""
while [ $# -gt 0 ]; do
  case "$1" in
    --driver) driver=$2; shift 2 ;;
    --imports-of) shift; importers="$*"; break ;;
    *) echo "check_exports.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name@@version of every defined dynamic symbol, sorted, into $tmp/<name>
exports() {
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 != "" && NR > 3 { print $8 }' | grep -v '^lib' | sort -u > "$tmp/$2"
}

for lib in libcublas.so.$major libcublasLt.so.$major libcudart.so.$major; do
  exports "$standin/$lib" standin
  exports "$real/$lib" real
  unversioned=$(grep -v "@@$lib\$" "$tmp/standin" || true)
  [ -z "$unversioned" ] || { echo "FAIL: $lib exports symbols outside version $lib:" $unversioned; fail=1; }
  extra=$(comm -23 "$tmp/standin" "$tmp/real")
  [ -z "$extra" ] || { echo "FAIL: $lib exports names the real $lib does not have:" $extra; fail=1; }
  echo "$lib: $(wc -l < "$tmp/standin") symbols, all under version $lib"
  cp "$tmp/standin" "$tmp/exports.$lib"
  if [ "$lib" = libcublas.so.$major ]; then
    grep -i gemm "$tmp/real" | grep -v -e '^cublasXt' -e '^cublasUint8gemmBias' > "$tmp/gemms"
    missing=$(comm -23 "$tmp/gemms" "$tmp/standin")
    [ -z "$missing" ] || { echo "FAIL: GEMM entry points missing:" $missing; fail=1; }
    echo "$lib: all $(wc -l < "$tmp/gemms") GEMM entry points of the real library present"
  fi
done

for sym in cublasSgemm_v2@@libcublas.so.$major cublasGemmEx@@libcublas.so.$major \
           cublasSgemm@@libcublas.so.$major cublasLtMatmul@@libcublasLt.so.$major \
           cudaMalloc@@libcudart.so.$major cudaGetDeviceCount@@libcudart.so.$major \
           __cudaRegisterFatBinary@@libcudart.so.$major cudaEventRecord@@libcudart.so.$major; do
  grep -qx "$sym" "$tmp/exports.${sym#*@@}" || { echo "FAIL: $sym not exported"; fail=1; }
done

exports "$standin/libcuda.so.1" standin
if grep -q '@' "$tmp/standin"; then
  echo "FAIL: libcuda.so.1 exports versioned symbols"
  fail=1
fi
for sym in cuInit cuGetProcAddress_v2 cuGetProcAddress cuMemAlloc_v2 cuPointerGetAttribute; do
  grep -qx "$sym" "$tmp/standin" || { echo "FAIL: libcuda.so.1 lacks $sym"; fail=1; }
done
if [ -f "$driver" ]; then
  exports "$driver" real
  extra=$(grep -v '^standin_' "$tmp/standin" | comm -23 - "$tmp/real")
  [ -z "$extra" ] || { echo "FAIL: libcuda.so.1 exports names the driver ($driver) does not have:" $extra; fail=1; }
fi
echo "libcuda.so.1: $(wc -l < "$tmp/standin") symbols, unversioned"

if [ -n "$importers" ]; then
  # name@version lines of what the importers need from the three versioned libraries.
  nm -D --undefined-only $importers | awk '{ print $NF }' |
    grep -E "@(libcudart|libcublas|libcublasLt)\.so\.$major\$" | sort -u > "$tmp/imports"
  cat "$tmp/exports.libcudart.so.$major" "$tmp/exports.libcublas.so.$major" \
      "$tmp/exports.libcublasLt.so.$major" | sed 's/@@/@/' | sort -u > "$tmp/all"
  missing=$(comm -23 "$tmp/imports" "$tmp/all")
  [ -z "$missing" ] || { echo "FAIL: imported but not exported by the stand-in:" $missing; fail=1; }
  # The driver's API is unversioned: every cu* name imported without a version is the driver's.
  nm -D --undefined-only $importers | awk '{ print $NF }' | grep -E '^cu[A-Z][A-Za-z0-9_]*$' | sort -u > "$tmp/driver_imports"
  exports "$standin/libcuda.so.1" standin
  missing_driver=$(comm -23 "$tmp/driver_imports" "$tmp/standin")
  [ -z "$missing_driver" ] || { echo "FAIL: imported from libcuda.so.1 but not exported:" $missing_driver; fail=1; }
  echo "imports from libcuda.so.1: $(wc -l < "$tmp/driver_imports"), missing from the stand-in:" \
       "$(echo "$missing_driver" | grep -c . || true)"
  for lib in libcudart libcublas libcublasLt; do
    echo "imports from $lib.so.$major: $(grep -c "@$lib\.so\.$major\$" "$tmp/imports" || true)," \
         "missing from the stand-in: $(echo "$missing" | grep -c "@$lib\.so\.$major\$" || true)"
  done
fi
[ "$fail" -eq 0 ] && echo "exports ok"
exit "$fail"

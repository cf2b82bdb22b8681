#!/bin/sh
# Each binary needs nothing of the build machine's but glibc: no NEEDED entry beyond glibc's own
# libraries, and no glibc symbol version above the documented floor.
# Usage: self_contained.sh <glibc floor, e.g. 2.34> <binary>...
set -eu
floor=$1
shift
fail=0
for bin in "$@"; do
  extra=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
          grep -vE '^(libc|libm|libdl|libpthread|librt)\.so\.[0-9]+$|^ld-linux-x86-64\.so\.2$' || true)
  if [ -n "$extra" ]; then
    echo "FAIL: $bin needs more than glibc:" $extra
    fail=1
  fi
  highest=$(readelf -V -W "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n 1)
  if [ -n "$highest" ] && [ "$(printf '%s\n%s\n' "$highest" "$floor" | sort -t. -k1,1n -k2,2n | tail -n 1)" != "$floor" ]; then
    echo "FAIL: $bin needs GLIBC_$highest, above the floor $floor:"
    readelf --dyn-syms -W "$bin" | grep "GLIBC_$highest" | awk '{print "  " $8}' | head
    fail=1
  fi
  echo "$bin: glibc only, GLIBC_${highest:-none} at most"
done
exit $fail

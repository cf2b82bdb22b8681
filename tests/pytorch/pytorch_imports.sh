#!/bin/sh
# Does the CUDA 12 stand-in export everything real PyTorch 2.6 imports from libcudart.so.12,
# libcublas.so.12 and libcublasLt.so.12, under the right version nodes, and nothing the root's
# real 12.4 libraries lack? The importers: every ELF .so of Debian's torch packages in the root,
# plus the libraries they load (DT_NEEDED, transitively) that are linked -z now, because those
# need every import at load time (libgloo_cuda does; libcusolver binds lazily and is left out).
# Usage: pytorch_imports.sh <stand-in dir (standin-cuda12)> <check_exports.sh>
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/root_check.sh"
standin=$1
check=$2
lib="$root/usr/lib/x86_64-linux-gnu"

# A path inside the root, with absolute symlinks (the driver's /etc/alternatives) kept inside it.
in_root() {
  p=$1
  while [ -L "$root$p" ]; do
    t=$(readlink "$root$p")
    case "$t" in /*) p=$t ;; *) p=$(dirname "$p")/$t ;; esac
  done
  echo "$root$p"
}

torch_files=$(dpkg-query --admindir="$root/var/lib/dpkg" -L libtorch-cuda-2.6 python3-torch-cuda |
  grep '\.so' | while read -r f; do if [ -f "$root$f" ] && [ ! -L "$root$f" ]; then echo "$root$f"; fi; done)
[ -n "$torch_files" ] || { echo "FAIL: no torch libraries in $root" >&2; exit 1; }

# The DT_NEEDED closure, without the four libraries the stand-in replaces.
seen=" "
queue=$torch_files
bind_now=""
while [ -n "$queue" ]; do
  next=""
  for f in $queue; do
    for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      case "$n" in libcudart.so.*|libcublas.so.*|libcublasLt.so.*|libcuda.so.*) continue ;; esac
      case "$seen" in *" $n "*) continue ;; esac
      seen="$seen$n "
      for d in /usr/lib/x86_64-linux-gnu /usr/lib /lib/x86_64-linux-gnu; do
        [ -e "$root$d/$n" ] || continue
        path=$(in_root "$d/$n")
        next="$next $path"
        if readelf -d "$path" | grep -q 'BIND_NOW'; then bind_now="$bind_now $path"; fi
        break
      done
    done
  done
  queue=$next
done
echo "importers: $(echo $torch_files | wc -w) torch libraries and $(echo $bind_now | wc -w) libraries" \
     "they load that are linked -z now"
exec sh "$check" 12 "$standin" "$lib" --driver "$(in_root /usr/lib/x86_64-linux-gnu/libcuda.so.1)" \
  --imports-of $torch_files $bind_now

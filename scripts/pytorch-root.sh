#!/usr/bin/env bash
# Builds (once) a Debian trixie root with Debian's CUDA build of PyTorch (python3-torch-cuda,
# contrib; cuBLAS, cuBLASLt and cudart 12 from non-free), so that the shim can be tried on
# the real libraries PyTorch loads. See docs/PYTORCH.md.
#
# usage: scripts/pytorch-root.sh [--print-versions]
#
# The root lives at ${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}. A complete
# root has the stamp .cublasspy-root-complete, written last; with it this returns at once.
# Without it (never built, or a build that died half way) the root is removed and built
# again; downloaded packages are kept next to it (ROOT.debs) until a build succeeds, so a
# retry does not download them again. A lock (ROOT.lock) keeps concurrent callers from
# building twice: they wait, then find the root complete. Progress goes to stderr, the
# tools' output to ROOT.log. On success the last line on stdout is the root's path; with
# --print-versions, the versions of the main packages in it instead.
# Needs root, debootstrap, equivs-build, gcc, nm, unshare, and Debian's mirror
# (${CUBLASSPY_DEBIAN_MIRROR:-http://deb.debian.org/debian}). Run commands in the root with
# scripts/in-pytorch-root.sh.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}"
mirror="${CUBLASSPY_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=trixie
# Bump when the recipe changes: a root stamped with another recipe is built again.
recipe="cublasspy-pytorch-root recipe 1"
stamp_name=.cublasspy-root-complete
# Small additions made after the recipe, in their own step with their own stamp, so that a
# complete root gets them without a rebuild: python3-venv (venv with pip, for the wheel's
# install test, tests/packaging). Changing this list installs it into existing roots.
extras=(python3-venv)
version_packages=(python3 python3-torch-cuda libcublas12 libcublaslt12 libcudart12 libcuda1
                  python3-numpy nvidia-cudnn)

say() { echo "pytorch-root: $*" >&2; }
die() { echo "pytorch-root: error: $*" >&2; exit 1; }

print_versions=0
case "${1:-}" in
  "") ;;
  --print-versions) print_versions=1 ;;
  *) die "unknown argument $1 (usage: pytorch-root.sh [--print-versions])" ;;
esac

case "$root" in /*) ;; *) root="$PWD/$root" ;; esac
root="${root%/}"
if [ -z "$root" ] || [ "$root" = / ]; then die "CUBLASSPY_PYTORCH_ROOT must not be /"; fi
stamp="$root/$stamp_name"

complete() { [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$recipe" ]; }
extras_stamp="$root/.cublasspy-root-extras"
extras_done() { [ -f "$extras_stamp" ] && [ "$(cat "$extras_stamp")" = "${extras[*]}" ]; }
finish() {
  if ((print_versions)); then
    dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Version}\n' "${version_packages[@]}"
  else
    echo "$root"
  fi
  exit 0
}

# The fast path: no lock, no tool, just the stamps.
complete && extras_done && finish

[ "$(id -u)" -eq 0 ] || die "building the root needs root (debootstrap, mount, chroot)"
for tool in debootstrap equivs-build gcc nm readelf unshare chroot flock dpkg-query; do
  command -v "$tool" >/dev/null || die "$tool is missing on this machine (apt-get install debootstrap equivs gcc binutils util-linux)"
done
mkdir -p "$(dirname "$root")"
lock="$root.lock"
exec 9>"$lock"
if ! flock -n 9; then
  say "another build holds $lock; waiting for it"
  flock -w 3600 9 || die "gave up waiting an hour for $lock"
fi
complete && extras_done && { say "the other build finished the root"; finish; }

log="$root.log"
debs="$root.debs"
: >"$log"
t0=$SECONDS
step_start=$SECONDS
step() { say "$* ..."; step_start=$SECONDS; }
done_step() { say "  done in $((SECONDS - step_start)) s"; }
# Runs a tool with its output in the log; on failure shows the log's end and stops.
logged() {
  echo "+ $*" >>"$log"
  if ! "$@" >>"$log" 2>&1; then
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    die "$1 failed (${FAIL_HINT:-see above}); full log: $log"
  fi
}
in_root() {
  "$here/in-pytorch-root.sh" --allow-incomplete --bind "$debs/apt:/var/cache/apt/archives" -- \
    /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# The extras, from the package lists the root was built with (no apt-get update: an update
# could upgrade what PyTorch runs on under the tests of others using the root).
add_extras() {
  step "apt-get install --no-install-recommends ${extras[*]} (extras, stamped apart)"
  mkdir -p "$debs/apt/partial"
  FAIL_HINT="can this machine reach $mirror?" logged in_root apt-get install -y --no-install-recommends "${extras[@]}"
  echo "${extras[*]}" >"$extras_stamp.tmp"
  mv "$extras_stamp.tmp" "$extras_stamp"
  done_step
  if [ "${CUBLASSPY_KEEP_DEBS:-0}" != 1 ]; then rm -rf "$debs"; fi
}
if complete; then
  add_extras
  finish
fi

# The processes whose root directory is in the root: chroot, or in-pytorch-root.sh.
root_users() {
  local p r
  for p in /proc/[0-9]*; do
    r="$(readlink "$p/root" 2>/dev/null)" || continue
    [ "$r" = "$root" ] || [ "${r#"$root"/}" != "$r" ] && echo "${p#/proc/}"
  done
  return 0
}
if [ -e "$root" ]; then
  # Nothing may be mounted below the root (this namespace's view) before it is removed.
  if awk -v r="$root" '$5 == r || index($5, r "/") == 1 {found = 1} END {exit !found}' /proc/self/mountinfo; then
    die "something is mounted below $root (see /proc/self/mountinfo); unmount it first"
  fi
  # A killed build can leave dpkg running in the root (apt starts it in its own session,
  # without the lock's descriptor): wait for such processes to end before removing.
  waited=0
  while users="$(root_users)"; [ -n "$users" ]; do
    ((waited < 600)) || die "processes still run in $root after 10 minutes: ${users//$'\n'/ }; end them first"
    ((waited % 30)) || say "waiting for processes still running in $root: ${users//$'\n'/ }"
    sleep 2
    waited=$((waited + 2))
  done
  say "removing $root: it has no stamp of this recipe (a build that did not finish, or an older recipe)"
  rm -rf --one-file-system "$root" || die "could not remove the incomplete root at $root"
fi
mkdir -p "$debs/debootstrap" "$debs/apt/partial"

step "debootstrap $suite (minbase; main, contrib, non-free) from $mirror into $root"
FAIL_HINT="can this machine reach $mirror?" logged debootstrap --variant=minbase \
  --components=main,contrib,non-free --cache-dir="$debs/debootstrap" "$suite" "$root" "$mirror"
done_step
# No service may start in the root.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

step "apt-get update in the root"
FAIL_HINT="can this machine reach $mirror?" logged in_root apt-get update
done_step

# python3-torch-cuda needs libtorch-cuda-2.6, which depends on nvidia-cudnn (>= 9.0...): a
# package that downloads cuDNN from NVIDIA when installed. A placeholder package stands in
# for it, versioned above the archive's one so that any (>= X) dependency holds and apt
# never replaces it.
step "placeholder package for nvidia-cudnn"
echo "+ apt-cache show nvidia-cudnn" >>"$log"
cudnn_real="$(in_root apt-cache show --no-all-versions nvidia-cudnn 2>>"$log")" ||
  die "apt-cache show nvidia-cudnn failed in the root; log: $log"
cudnn_version="$(sed -n 's/^Version: //p' <<<"$cudnn_real")"
cudnn_provides="$(sed -n 's/^Provides: //p' <<<"$cudnn_real")"
[ -n "$cudnn_version" ] || die "no nvidia-cudnn in the root's archive; cannot make its placeholder"
in_root apt-cache show --no-all-versions python3-torch-cuda libtorch-cuda-2.6 2>/dev/null |
  grep -o 'nvidia-cudnn[^,]*' | sort -u | sed 's/^/  needed: /' >&2 || true
say "  archive: nvidia-cudnn $cudnn_version (Provides: ${cudnn_provides:-none})"
eq="$(mktemp -d)"
trap 'rm -rf "$eq"' EXIT
cat >"$eq/nvidia-cudnn.ctl" <<EOF
Section: contrib/libs
Priority: optional
Standards-Version: 4.6.2
Package: nvidia-cudnn
Version: $cudnn_version+cublasspy1
${cudnn_provides:+Provides: $cudnn_provides}
Description: cublasspy placeholder for nvidia-cudnn (no cuDNN)
 Satisfies PyTorch's dependency on nvidia-cudnn, which downloads cuDNN from
 NVIDIA and cannot work offline. scripts/pytorch-root.sh installs a placeholder
 libcudnn.so.9 whose entry points return CUDNN_STATUS_NOT_INITIALIZED.
EOF
(cd "$eq" && logged equivs-build nvidia-cudnn.ctl)
mkdir -p "$debs/placeholder"
cp "$eq"/nvidia-cudnn_*.deb "$debs/placeholder/"
deb="$(basename "$eq"/nvidia-cudnn_*.deb)"
logged "$here/in-pytorch-root.sh" --allow-incomplete --bind "$debs/placeholder:/tmp/placeholder" -- \
  /usr/bin/env PATH=/usr/sbin:/usr/bin:/sbin:/bin dpkg -i "/tmp/placeholder/$deb"
logged in_root apt-mark hold nvidia-cudnn
say "  installed nvidia-cudnn $cudnn_version+cublasspy1 (placeholder, held)"
done_step

step "apt-get install --no-install-recommends python3-torch-cuda (about 1.4 GB of packages)"
FAIL_HINT="see the log" logged in_root apt-get install -y --no-install-recommends python3-torch-cuda
done_step

step "placeholder libcudnn.so.9"
# The libraries that link libcudnn.so.9: those of the installed torch packages.
mapfile -t torch_pkgs < <(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Status}\n' |
  awk '$1 ~ /torch/ && $NF == "installed" {print $1}')
((${#torch_pkgs[@]})) || die "no torch package is installed in the root"
mapfile -t torch_libs < <(dpkg-query --admindir="$root/var/lib/dpkg" -L "${torch_pkgs[@]}" |
  grep -E '\.so(\.[0-9.]+)?$' | sort -u)
cudnn_users=()
for lib in ${torch_libs[@]+"${torch_libs[@]}"}; do
  if [ ! -f "$root$lib" ] || [ -L "$root$lib" ]; then continue; fi
  readelf -d "$root$lib" 2>/dev/null | grep -q 'NEEDED.*\[libcudnn\.so\.9\]' && cudnn_users+=("$root$lib")
done
((${#cudnn_users[@]})) || die "no torch library links libcudnn.so.9; the recipe needs a look"
cudnn_int=$(awk -F'[.~+-]' '{print $1 * 10000 + $2 * 100 + $3}' <<<"$cudnn_version")
n=$("$here/pytorch-root/cudnn_placeholder.sh" "$root/usr/lib/x86_64-linux-gnu/libcudnn.so.9" \
  "$cudnn_int" "${cudnn_users[@]}" 2>>"$log") || die "building the placeholder libcudnn.so.9 failed; log: $log"
logged in_root ldconfig
say "  $n cuDNN entry points (imported by ${cudnn_users[*]#"$root"}), version $cudnn_int"
done_step

step "checking the root"
for lib in "${cudnn_users[@]}"; do
  missing="$(in_root ldd "${lib#"$root"}" 2>&1 | grep 'not found' || true)"
  [ -z "$missing" ] || die "${lib#"$root"} still misses libraries in the root: $missing"
done
check="$(in_root python3 -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())' 2>&1)" || {
  echo "$check" | tail -n 20 | sed 's/^/  | /' >&2
  die "import torch fails in the root"
}
say "  torch.__version__, torch.version.cuda, torch.cuda.is_available(): $(tail -n 1 <<<"$check")"
done_step

add_extras
{
  echo "$recipe"
  echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) from $mirror $suite"
  dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Package} ${Version}\n'
} >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
say "root complete in $((SECONDS - t0)) s, $(du -sh "$root" | cut -f1): $root"
finish

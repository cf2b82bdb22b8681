#!/usr/bin/env bash
# Runs a command inside the PyTorch root that scripts/pytorch-root.sh builds.
#
# usage: scripts/in-pytorch-root.sh [--bind SRC[:DST]]... [--env NAME=VALUE]... [--cwd DIR]
#                                   [--] CMD [ARG...]
#
# Each call gets its own mount namespace (unshare --mount): /proc, /dev (recursive bind),
# /sys (recursive bind), a fresh tmpfs on /tmp, and the requested binds are mounted there
# and vanish with the call, so concurrent calls do not interfere and nothing is left
# mounted. Binds come from --bind and from CUBLASSPY_ROOT_BIND (SRC[:DST] pairs separated
# by whitespace); DST is a path inside the root, SRC's own path when left out, and is
# created in the root when missing. --cwd DIR runs CMD in DIR (inside the root; default /).
# The environment passes through to CMD; LD_PRELOAD and LD_LIBRARY_PATH are taken out of it
# for the host tools this script runs (mount, chroot, ...) and given back to CMD only, so a
# shim meant for the root is not loaded into them. --env NAME=VALUE sets a variable for CMD
# only; prefer it for LD_PRELOAD (a passed-through one makes the dynamic loader print one
# "cannot be preloaded" line when it starts this script). The exit status is CMD's; 125 means this script
# could not set the call up. Needs root. The root is ${CUBLASSPY_PYTORCH_ROOT:-
# /var/cache/cublasspy/pytorch-root} and must be complete (see scripts/pytorch-root.sh).
set -euo pipefail

root="${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}"
die() { echo "in-pytorch-root: $*" >&2; exit 125; }

# Keep the loader variables away from the host tools; CMD gets them back.
envs=()
for v in LD_PRELOAD LD_LIBRARY_PATH; do
  if [ -n "${!v+set}" ]; then envs+=("$v=${!v}"); unset "$v"; fi
done
binds=()
cwd=/
allow_incomplete=0
while (($#)); do
  case "$1" in
    --bind) (($# >= 2)) || die "--bind needs SRC[:DST]"; binds+=("$2"); shift 2 ;;
    --bind=*) binds+=("${1#--bind=}"); shift ;;
    --env) (($# >= 2)) || die "--env needs NAME=VALUE"; envs+=("$2"); shift 2 ;;
    --env=*) envs+=("${1#--env=}"); shift ;;
    --cwd) (($# >= 2)) || die "--cwd needs DIR"; cwd="$2"; shift 2 ;;
    --cwd=*) cwd="${1#--cwd=}"; shift ;;
    # Used by scripts/pytorch-root.sh while it builds the root.
    --allow-incomplete) allow_incomplete=1; shift ;;
    --) shift; break ;;
    -*) die "unknown option $1 (usage: in-pytorch-root.sh [--bind SRC[:DST]]... [--env NAME=VALUE]... [--cwd DIR] [--] CMD [ARG...])" ;;
    *) break ;;
  esac
done
for e in ${envs[@]+"${envs[@]}"}; do
  [[ "$e" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants NAME=VALUE, not $e"
done
(($#)) || die "no command given (usage: in-pytorch-root.sh [--bind SRC[:DST]]... [--env NAME=VALUE]... [--cwd DIR] [--] CMD [ARG...])"
[ "$(id -u)" -eq 0 ] || die "needs root (mount, chroot)"
root="$(cd "$root" 2>/dev/null && pwd)" || die "no root at ${CUBLASSPY_PYTORCH_ROOT:-/var/cache/cublasspy/pytorch-root}; run scripts/pytorch-root.sh first"
if ((!allow_incomplete)) && [ ! -f "$root/.cublasspy-root-complete" ]; then
  die "the root at $root is not complete; run scripts/pytorch-root.sh first"
fi
if [ -n "${CUBLASSPY_ROOT_BIND:-}" ]; then
  read -r -a env_binds <<<"$CUBLASSPY_ROOT_BIND"
  binds+=("${env_binds[@]}")
fi

# Resolve the binds here, before any mount, so mistakes are reported without side effects.
srcs=() dsts=()
for b in ${binds[@]+"${binds[@]}"}; do
  src="${b%%:*}"
  dst="${b#*:}"
  [ "$b" = "$src" ] && dst="$src"
  [ -e "$src" ] || die "bind source $src does not exist"
  src="$(realpath "$src")"
  case "$dst" in /*) ;; *) die "bind destination $dst must be an absolute path inside the root" ;; esac
  dst="$(realpath -m "/$dst")"
  [ "$dst" != / ] || die "cannot bind over the root's /"
  srcs+=("$src") dsts+=("$dst")
done

# The mounts are made in a private mount namespace; the inner script gets: root, cwd, the
# number of binds, the SRC DST pairs, the NAME=VALUE settings, then the command.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='
set -eu
fail() { echo "in-pytorch-root: $*" >&2; exit 125; }
m() { mount "$@" || fail "mount $* failed"; }
root=$1 cwd=$2 n=$3; shift 3
m -t proc proc "$root/proc"
m --rbind /dev "$root/dev"
m --rbind /sys "$root/sys"
m -t tmpfs -o mode=1777 tmpfs "$root/tmp"
while [ "$n" -gt 0 ]; do
  src=$1 dst=$2; shift 2; n=$((n - 1))
  if [ -d "$src" ]; then mkdir -p "$root$dst" || fail "cannot create $dst in the root"
  else
    mkdir -p "$(dirname "$root$dst")" && { [ -e "$root$dst" ] || : >"$root$dst"; } ||
      fail "cannot create $dst in the root"
  fi
  m --rbind "$src" "$root$dst"
done
# What is left: the NAME=VALUE settings, then the command; env in the root takes both.
exec chroot "$root" /usr/bin/env --chdir="$cwd" "$@"
'
args=("$root" "$cwd" "${#srcs[@]}")
for i in ${srcs[@]+"${!srcs[@]}"}; do args+=("${srcs[$i]}" "${dsts[$i]}"); done
args+=(${envs[@]+"${envs[@]}"})
exec unshare --mount --propagation private -- /bin/sh -c "$inner" in-pytorch-root "${args[@]}" "$@"

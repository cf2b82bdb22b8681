#!/bin/sh
# Fails when a trace (.cbt) or an operand dump (.npy) is tracked outside tests/: they carry a
# machine's environment and a program's data, and one committed by mistake travels with every
# clone. Usage: no_stray_traces.sh <source dir>
set -eu
cd "$1"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  stray=$(git ls-files -- '*.cbt' '*.cbt.*' '*.npy' | grep -v '^tests/' || true)
else
  # A source tree without git (an unpacked release): its files, build folders aside.
  stray=$(find . \( -path ./tests -o -path ./.git -o -name 'build*' \) -prune -o \
               \( -name '*.cbt' -o -name '*.cbt.*' -o -name '*.npy' \) -type f -print)
fi
if [ -n "$stray" ]; then
  echo "FAIL: traces or dumps tracked outside tests/ (they hold a machine's environment):"
  echo "$stray"
  exit 1
fi
echo "no trace or dump outside tests/"

#!/bin/sh
# scripts/demo.sh without building anything (the demo's own build is measured in
# docs/BENCHMARKS.md): a wrong option, --pytorch without the PyTorch root, and a build that fails,
# which shows the demo's one line on stdout, then the end of the build log on stderr.
# Usage: demo_test.sh <repository root> <scratch directory>
set -u
demo="$1/scripts/demo.sh"
work="$2"
rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
check() {  # check NAME CONDITION-STATUS DETAIL
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1: $3"; failures=$((failures + 1)); fi
}

"$demo" --bogus >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "usage: scripts/demo.sh \[--pytorch\]" "$work/err"
check "a wrong option: usage, status 2" $? "rc $rc, $(cat "$work/err")"

mkdir "$work/no-root"
CUBLASSPY_PYTORCH_ROOT="$work/no-root" BUILD_DIR="$work/unused" "$demo" --pytorch >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q "no PyTorch root at $work/no-root" "$work/err" &&
  grep -q "scripts/pytorch-root.sh" "$work/err" && [ ! -s "$work/out" ] && [ ! -e "$work/unused" ]
check "--pytorch without the root: says how to build it, builds nothing, status 1" $? \
  "rc $rc, stdout: $(cat "$work/out"), stderr: $(cat "$work/err")"

# A build folder whose cache names another source tree: cmake stops at once.
mkdir "$work/build"
echo "CMAKE_HOME_DIRECTORY:INTERNAL=$work/elsewhere" >"$work/build/CMakeCache.txt"
BUILD_DIR="$work/build" "$demo" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 1 ]
check "a failed build: status 1" $? "rc $rc"
[ "$(cat "$work/out")" = "demo: building the shim, the CLI, the stand-in and the example ... (log: $work/build/demo-build.log)" ]
check "a failed build: one line on stdout, naming the log" $? "$(cat "$work/out")"
grep -q "^demo: the build failed; the end of $work/build/demo-build.log:" "$work/err" &&
  grep -q "does not match the source" "$work/err"
check "a failed build: the log's end on stderr" $? "$(cat "$work/err")"

[ "$failures" -eq 0 ] && echo "all checks passed"
exit "$failures"

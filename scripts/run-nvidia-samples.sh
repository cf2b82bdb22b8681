#!/usr/bin/env bash
# NVIDIA's published GEMM samples (CUDALibrarySamples: cuBLAS Level-3 and Extensions GEMMs, every
# cuBLASLt sample), unchanged, under the shim on the CPU stand-in: the acceptance run of no false findings and
# no missing arguments on NVIDIA's own samples (docs/SAMPLES.md). Exports the samples from a git mirror (or takes a checkout), builds each one
# with g++ against /usr/local/cuda (their .cu files hold host code only), runs it under
#   cublasspy run --check --scan all --dump all
# with LD_LIBRARY_PATH at the stand-in, and prints one table row per sample:
#   built      the sample compiled and linked
#   exit       its exit status (a signal as 128+N)
#   same       "yes" when its standard output under the shim is its output without it (numbers
#              with a decimal point, its timings, masked); else "no", the two outputs kept
#              (bare.log, run.log; the standard errors, with the shim's warnings, in *.err)
#   findings   the report's error and warning diagnoses, by id ("-": none)
#   records    "complete" when every call was recorded whole (none in flight, none dropped or torn,
#              the ring held them all) and every cuBLAS/cuBLASLt function the sample imports is
#              hooked by the shim; else what is missing
# Not part of CI: a fresh machine has no mirror of the samples. Needs a build (scripts/build.sh or
# cmake --build build): build/bin/cublasspy, build/lib/libcublasspy.so, build/standin.
#
# --supplement LIB preloads LIB after the shim (and alone in the run without it): another
# interposer beside cublasspy, such as the tests' libshim_providing_interposer.so, which provides
# the CUDA events the autotuning samples time with.
#
# usage: scripts/run-nvidia-samples.sh [--mirror GIT_DIR | --samples DIR] [--commit REV]
#                                      [--build BUILD_DIR] [--work DIR] [--only NAME]
#                                      [--supplement LIB]
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
mirror=/work/.mirror/NVIDIA+CUDALibrarySamples/repo
samples=""
# The newest commit whose cuBLASLt/Common/helpers.h builds against CUDA 13.0: the next one
# (6b3fa10, "Add grouped GEMM samples for narrow precision types") uses
# CUBLASLT_MATMUL_MATRIX_SCALE_PER_BATCH_SCALAR_32F, which 13.0's cublasLt.h lacks.
commit=d130c29d9098fe907a21f28501a7e19f17295e6b
build="$here/build"
work=""
only=""
supplement=""
cuda=/usr/local/cuda

while [ $# -gt 0 ]; do
  case "$1" in
    --mirror) mirror="$2"; shift 2 ;;
    --samples) samples="$2"; shift 2 ;;
    --commit) commit="$2"; shift 2 ;;
    --build) build="$(cd "$2" && pwd)"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --supplement) supplement="$(realpath "$2")"; shift 2 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "run-nvidia-samples.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

tool="$build/bin/cublasspy"
shim="$build/lib/libcublasspy.so"
standin="$build/standin"
for f in "$tool" "$shim" "$standin/libcublas.so.13" "$standin/libcublasLt.so.13"; do
  [ -e "$f" ] || { echo "run-nvidia-samples.sh: $f is missing: build first (cmake --build build)" >&2; exit 2; }
done
command -v jq >/dev/null || { echo "run-nvidia-samples.sh: jq is needed to read the reports" >&2; exit 2; }

[ -n "$work" ] || work="$(mktemp -d /tmp/nvidia-samples.XXXXXX)"
mkdir -p "$work"
if [ -z "$samples" ]; then
  [ -d "$mirror" ] || { echo "run-nvidia-samples.sh: no samples mirror at $mirror (give --mirror or --samples)" >&2; exit 2; }
  samples="$work/src"
  # Exported once per commit (their times stay, so kept binaries stay newer than them).
  if [ "$(cat "$work/src.commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$samples" "$work/bin"
    mkdir -p "$samples"
    git --git-dir="$mirror" archive "$commit" cuBLAS/Level-3 cuBLAS/Extensions cuBLAS/utils cuBLASLt |
      tar -x -C "$samples"
    echo "$commit" >"$work/src.commit"
  fi
fi

# The functions the shim records: what a sample imports beyond these goes unrecorded.
hooked="$work/hooked.txt"
nm -D --defined-only "$shim" | awk '{print $3}' | sort -u >"$hooked"

# name|directory|sources|libraries
list="$work/samples.txt"
: >"$list"
for d in gemm gemmBatched gemmStridedBatched gemmGroupedBatched; do
  echo "cuBLAS/Level-3/$d|cuBLAS/Level-3/$d|cublas_${d}_example.cu|-lcublas -lcudart" >>"$list"
done
for d in GemmEx GemmBatchedEx GemmStridedBatchedEx GemmGroupedBatchedEx GemmExAutoTuning; do
  echo "cuBLAS/Extensions/$d|cuBLAS/Extensions/$d|cublas_${d}_example.cu|-lcublas -lcudart" >>"$list"
done
shopt -s nullglob
for dir in "$samples"/cuBLASLt/Lt*/; do
  d="$(basename "$dir")"
  srcs=""
  for f in "$dir"*.cpp "$dir"*.cu; do srcs+="$(basename "$f") "; done
  # The samples whose CMakeLists.txt compiles ../Common/helpers.cpp in (the CustomFind ones).
  ! grep -q 'Common/helpers.cpp' "$dir/CMakeLists.txt" 2>/dev/null || srcs+="../Common/helpers.cpp "
  echo "cuBLASLt/$d|cuBLASLt/$d|$srcs|-lcublasLt -lcudart" >>"$list"
done
shopt -u nullglob

# A sample's output with its timings masked, for the comparison with and without the shim.
masked() { sed -E 's/[0-9]+\.[0-9]+([eE][-+]?[0-9]+)?/N.N/g' "$1"; }

printf '| sample | built | exit | same | findings | records |\n| --- | --- | --- | --- | --- | --- |\n'
while IFS='|' read -r name dir srcs libs; do
  [ -z "$only" ] || [[ "$name" == *"$only"* ]] || continue
  id="${name//\//_}"
  out="$work/out/$id"
  rm -rf "$out"
  mkdir -p "$out" "$work/bin"
  # The binaries do not depend on the shim: one kept from an earlier run with the same --work
  # and newer than its sources is used again (a rerun after rebuilding the shim compiles nothing).
  exe="$work/bin/$id"
  sources=()
  for s in $srcs; do sources+=("$samples/$dir/$s"); done
  fresh=1
  [ -x "$exe" ] || fresh=0
  for s in "${sources[@]}"; do [ "$s" -ot "$exe" ] || fresh=0; done
  # shellcheck disable=SC2086
  if [ "$fresh" = 0 ] && ! g++ -std=c++17 -O0 -w -x c++ "${sources[@]}" -I"$samples/$dir" \
       -I"$samples/cuBLASLt/Common" -I"$samples/cuBLAS/utils" -I"$cuda/include" -L"$cuda/lib64" $libs \
       -o "$exe" >"$work/bin/$id.log" 2>&1; then
    rm -f "$exe"
    why="$(grep -m1 -o 'error: .*' "$work/bin/$id.log" | cut -c1-90 | sed 's/|/\\|/g')"
    printf '| %s | no: %s | | | | |\n' "$name" "$why"
    continue
  fi
  set +e
  mkdir -p "$out/bare"
  (cd "$out/bare" && LD_LIBRARY_PATH="$standin" LD_PRELOAD="$supplement" timeout 300 "$exe" >"$out/bare.log" 2>"$out/bare.err")
  (cd "$out" && LD_LIBRARY_PATH="$standin" LD_PRELOAD="$supplement" timeout 300 "$tool" run --check --scan all \
      --dump all --summary never -o "$out/t-%p.cbt" -- "$exe" >"$out/run.log" 2>"$out/run.err")
  status=$?
  set -e
  same=no
  ! cmp -s <(masked "$out/bare.log") <(masked "$out/run.log") || same=yes
  traces=("$out"/t-*.cbt)
  if [ ! -e "${traces[0]}" ]; then
    printf '| %s | yes | %s | %s | no trace | no trace |\n' "$name" "$status" "$same"
    continue
  fi
  "$tool" report --json --all "${traces[@]}" >"$out/report.json" 2>"$out/report.err" || true
  "$tool" report "${traces[@]}" >"$out/report.txt" 2>&1 || true
  findings="$(jq -r '[.diagnoses[] | select(.severity == "error" or .severity == "warning") | .id] |
                     group_by(.) | map("\(.[0])" + (if length > 1 then " ×\(length)" else "" end)) | join(", ")' \
               "$out/report.json" 2>/dev/null || echo "report failed")"
  [ -n "$findings" ] || findings="-"
  problems="$(jq -r '[.traces[] | .totals as $t |
                      (if $t.in_flight > 0 then "\($t.in_flight) in flight" else empty end),
                      (if $t.dropped_records > 0 then "\($t.dropped_records) dropped" else empty end),
                      (if $t.torn_records > 0 then "\($t.torn_records) torn" else empty end),
                      (if $t.records_held < $t.calls then "ring wrapped" else empty end)] | join(", ")' \
               "$out/report.json" 2>/dev/null || echo "report failed")"
  unhooked="$(nm -D --undefined-only "$exe" | awk '{print $2}' | sed 's/@.*//' | grep -E '^cublas' | sort -u |
              comm -23 - "$hooked" | tr '\n' ' ' | sed 's/ $//')"
  [ -z "$unhooked" ] || problems="${problems:+$problems; }not hooked: $unhooked"
  dumps="$(find "$out" -name '*.npy' | wc -l)"
  printf '| %s | yes | %s | %s | %s | %s (%s dumps) |\n' "$name" "$status" "$same" "$findings" "${problems:-complete}" \
    "$dumps"
done <"$list"
echo
echo "outputs (bare.log, run.log, traces, report.json, report.txt) under $work/out, binaries and build logs under $work/bin"

# The test-support library every test fragment links (included first by tests/CMakeLists.txt):
#   process:          the one way tests start a program (run_process, start_process, ScratchDir)
#   shim_tests:       the shim tests' paths, traced()/on_standin() environments, trace readers
#                     (tests/integration, tests/hardening)
#   tool_tests:       the tool tests' paths, simple_gemm under the shim, report --json
#                     (tests/tools, tests/replay)
#   traced_run, diagnose_helpers: a real program under the real shim, its traces diagnosed
#                     (tests/diagnoses)
#   fake_tree:        a fake machine's /proc, /dev and /etc under a temporary root
# The paths of the things under test are compile definitions; targets defined by the fragments
# (simple_gemm, the empty preload) are named by generator expressions.
set(CUBLASSPY_TEST_PROGRAM_DIR ${CMAKE_BINARY_DIR}/test-programs)

# Python for the ctypes test, the hook list's and the CUDA vocabulary's generators run as checks
# (shim.gemm_hooks_generated, shim.hook_coverage, common.cuda_names_current, unit.CudaNames.*):
# required, so that those tests are never silently left out of a build without it. The
# interpreter itself, not a launcher script in front of it (pyenv's shims run bash on every
# start, a second each here).
find_package(Python3 COMPONENTS Interpreter QUIET)
cublasspy_require(Python3_Interpreter_FOUND "Python 3 for its tests" "python3")
execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print(sys.executable)"
                OUTPUT_VARIABLE CUBLASSPY_TEST_PYTHON OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
cublasspy_require(CUBLASSPY_TEST_PYTHON "a Python 3 that runs (${Python3_EXECUTABLE} did not)" "python3")

set(cbs_support_dir ${CMAKE_CURRENT_LIST_DIR})
add_library(cublasspy_test_support STATIC
  ${cbs_support_dir}/prerequisites.cpp
  ${cbs_support_dir}/process.cpp
  ${cbs_support_dir}/shim_tests.cpp
  ${cbs_support_dir}/tool_tests.cpp
  ${cbs_support_dir}/traced_run.cpp
  ${cbs_support_dir}/diagnose_helpers.cpp
  ${cbs_support_dir}/fake_tree.cpp)
target_include_directories(cublasspy_test_support PUBLIC ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(cublasspy_test_support PUBLIC cublasspy_trace_reader cublasspy_diagnose
                      nlohmann_json::nlohmann_json GTest::gtest PRIVATE cublasspy_process)
target_compile_options(cublasspy_test_support PRIVATE -Wall -Wextra)
target_compile_definitions(cublasspy_test_support PUBLIC
  # traced_run.h: write_healthy_machine copies it
  CUBLASSPY_HEALTHY_MACHINE="${PROJECT_SOURCE_DIR}/standin/healthy-machine"
  # prerequisites.h
  CUBLASSPY_STANDIN_CUBLAS="$<TARGET_FILE:standin_cublas>"
  # shim_tests.h
  CUBLASSPY_SHIM_PATH="$<TARGET_FILE:cublasspy>"
  CUBLASSPY_STANDIN_PATH="${CUBLASSPY_STANDIN_DIR}"
  CUBLASSPY_PROGRAM_DIR="${CUBLASSPY_TEST_PROGRAM_DIR}"
  CUBLASSPY_INTEGRATION_SOURCE_DIR="${PROJECT_SOURCE_DIR}/tests/integration"
  CUBLASSPY_PYTHON_PATH="${CUBLASSPY_TEST_PYTHON}"
  # tool_tests.h
  CUBLASSPY_TOOL="$<TARGET_FILE:cublasspy_cli>"
  CUBLASSPY_SHIM="$<TARGET_FILE:cublasspy>"
  SIMPLE_GEMM="$<TARGET_FILE:simple_gemm>"
  EMPTY_PRELOAD="$<TARGET_FILE:tools_test_empty_preload>"
  STANDIN_DIR="${CUBLASSPY_STANDIN_DIR}"
  GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/tools/golden"
  # traced_run.h
  CBS_TEST_SHIM="$<TARGET_FILE:cublasspy>"
  CBS_TEST_STANDIN_DIR="${CUBLASSPY_STANDIN_DIR}"
  CBS_TEST_PROGRAMS_DIR="${CUBLASSPY_TEST_PROGRAM_DIR}"
  CBS_TEST_CUDA_LIBDIR="${CUBLASSPY_CUDA_LIBDIR}")

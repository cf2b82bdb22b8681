# Tests of `cublasspy replay` (docs/REPLAY.md), included by tests/CMakeLists.txt.
# ctest names: replay.<Suite>.<Test>. No GPU: the subject program runs under the real shim on
# the CPU stand-in, and its calls are replayed on the stand-in and on the real, driverless CUDA.
set(CBS_REPLAY_TESTS ${CMAKE_CURRENT_LIST_DIR})

# The subject: every GEMM entry point of the hook list, cuBLASLt, the v1 API, and small
# scenarios (failing shapes, asynchronous errors, NaN data, handle state, invalid and huge calls).
cublasspy_test_program(replay_subjects
  ${CBS_REPLAY_TESTS}/programs/replay_subjects.cpp
  ${CBS_REPLAY_TESTS}/programs/replay_subjects_legacy.cpp
  ${CBS_REPLAY_TESTS}/programs/gemm_arguments.cpp)
target_include_directories(replay_subjects PRIVATE ${CBS_REPLAY_TESTS}/programs)
target_link_libraries(replay_subjects PRIVATE cublasspy_replay_common cublasspy_trace_reader)

# Unit tests: codec, tolerances, host reference, verdicts, plans, call adapters.
add_executable(replay_unit_test
  ${CBS_REPLAY_TESTS}/replay_unit_test.cpp
  ${PROJECT_SOURCE_DIR}/tools/replay/runner/call_adapters.cpp
  ${PROJECT_SOURCE_DIR}/tools/replay/runner/call_adapters_legacy.cpp)
target_link_libraries(replay_unit_test PRIVATE cublasspy_tools cuda_headers GTest::gtest_main)
target_compile_options(replay_unit_test PRIVATE -Wall -Wextra)
gtest_discover_tests(replay_unit_test TEST_PREFIX replay. DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)

# End to end: the real tool, runner, shim and stand-in (and tests/support's process helpers).
add_executable(replay_cli_test ${CBS_REPLAY_TESTS}/replay_cli_test.cpp)
target_link_libraries(replay_cli_test PRIVATE cublasspy_tools cublasspy_test_support GTest::gtest_main)
target_compile_options(replay_cli_test PRIVATE -Wall -Wextra)
target_compile_definitions(replay_cli_test PRIVATE
  REPLAY_RUNNER="$<TARGET_FILE:cublasspy_replay_runner>"
  REPLAY_SUBJECTS="$<TARGET_FILE:replay_subjects>")
add_dependencies(replay_cli_test cublasspy_cli cublasspy cublasspy_replay_runner replay_subjects)
if(TARGET standin)
  add_dependencies(replay_cli_test standin)
endif()
gtest_discover_tests(replay_cli_test TEST_PREFIX replay. DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 600)

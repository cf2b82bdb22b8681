# Tests of the command-line tool (included by tests/CMakeLists.txt). They run the real tool on
# traces the real shim wrote while tests/programs/simple_gemm ran against the real CUDA
# libraries (no driver here: the calls fail for real) and against the CPU stand-in.
# ctest names: tools.<Suite>.<Test>.
cublasspy_test_program(simple_gemm ${PROJECT_SOURCE_DIR}/tests/programs/simple_gemm.cpp)

# A library that does nothing, to show `run` keeps what LD_PRELOAD held.
add_library(tools_test_empty_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/empty_preload.c)
set_target_properties(tools_test_empty_preload PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)

add_executable(tools_test
  ${CMAKE_CURRENT_LIST_DIR}/perfetto_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_errors_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_golden_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_json_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer_version_test.cpp)
target_link_libraries(tools_test PRIVATE cublasspy_tools cublasspy_test_support cublasspy_version GTest::gtest_main)
target_compile_options(tools_test PRIVATE -Wall -Wextra)
# The paths of the things under test come with cublasspy_test_support (tests/support).
add_dependencies(tools_test cublasspy_cli cublasspy simple_gemm tools_test_empty_preload)
if(TARGET standin)
  add_dependencies(tools_test standin)
endif()

# Sanitizer builds: the shim (never sanitized) is preloaded ahead of the sanitizer runtime into
# the sanitized tool and simple_gemm, which must tolerate it; the empty library stays plain, as
# it is preloaded into plain programs (sh) too.
target_compile_options(tools_test_empty_preload PRIVATE -fno-sanitize=all)
target_link_options(tools_test_empty_preload PRIVATE -fno-sanitize=all)
set(TOOLS_TEST_ENV "")
if(CUBLASSPY_SANITIZE STREQUAL "address")
  set(TOOLS_TEST_ENV "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0")
endif()
gtest_discover_tests(tools_test TEST_PREFIX tools. DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 120 ENVIRONMENT "${TOOLS_TEST_ENV}")

# Tests of the command-line tool (included by tests/CMakeLists.txt). They run the real tool on
# traces the real shim wrote while tests/programs/simple_gemm ran against the real CUDA
# libraries (no driver here: the calls fail for real) and against the CPU stand-in.
# ctest names: tools.<Suite>.<Test>.
cublasspy_test_program(simple_gemm ${PROJECT_SOURCE_DIR}/tests/programs/simple_gemm.cpp)

# How a process ended (process_end_test.cpp): process_end, linked lazily against the new
# libends_api.so and run against the old one (a real "symbol lookup error").
add_library(ends_api_new SHARED ${PROJECT_SOURCE_DIR}/tests/programs/ends_api_new.c)
add_library(ends_api_old SHARED ${PROJECT_SOURCE_DIR}/tests/programs/ends_api_old.c)
foreach(version new old)
  set_target_properties(ends_api_${version} PROPERTIES OUTPUT_NAME ends_api
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs/ends-api-${version})
  target_compile_options(ends_api_${version} PRIVATE -fno-sanitize=all)
  target_link_options(ends_api_${version} PRIVATE -fno-sanitize=all)
endforeach()
cublasspy_test_program(process_end ${PROJECT_SOURCE_DIR}/tests/programs/process_end.cpp)
target_link_libraries(process_end PRIVATE ends_api_new)
target_link_options(process_end PRIVATE -Wl,-z,lazy)

# A program on the static CUDA runtime (static_runtime_test.cpp), as nvcc -cudart static links.
add_executable(static_runtime_gemm ${PROJECT_SOURCE_DIR}/tests/programs/static_runtime_gemm.cpp)
target_link_libraries(static_runtime_gemm PRIVATE cuda_headers Threads::Threads dl rt)
target_link_directories(static_runtime_gemm PRIVATE ${CUBLASSPY_CUDA_LIBDIR})
target_link_libraries(static_runtime_gemm PRIVATE cublas ${CUBLASSPY_CUDA_LIBDIR}/libcudart_static.a)
set_target_properties(static_runtime_gemm PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs
  BUILD_RPATH ${CUBLASSPY_CUDA_LIBDIR} SKIP_BUILD_RPATH OFF)

# A library that does nothing, to show `run` keeps what LD_PRELOAD held.
add_library(tools_test_empty_preload SHARED ${CMAKE_CURRENT_LIST_DIR}/empty_preload.c)
set_target_properties(tools_test_empty_preload PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)

add_executable(tools_test
  ${CMAKE_CURRENT_LIST_DIR}/bundle_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/perfetto_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_end_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_errors_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_golden_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_json_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_markdown_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/static_runtime_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/writer_version_test.cpp)
target_link_libraries(tools_test PRIVATE cublasspy_tools cublasspy_test_support cublasspy_version GTest::gtest_main)
target_compile_options(tools_test PRIVATE -Wall -Wextra)
# The paths of the things under test come with cublasspy_test_support (tests/support).
add_dependencies(tools_test cublasspy_cli cublasspy simple_gemm process_end ends_api_old static_runtime_gemm
                 tools_test_empty_preload)
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

# CUBLASSPY_SCAN and CUBLASSPY_DUMP (included by tests/CMakeLists.txt). ctest names: scan.<Suite>.<Test>.
#   scan_test: the element rules (every fp16/bf16/fp8 code against the stand-in's decoders), the
#              host scan, the kernel's per-thread loop run on the CPU, the .npy writer; and the
#              scan/dump engines (src/scan/gemm_scan, device_reader, src/dump/gemm_dump)
#              against a fake driver, including the kernel path with the loop run by a fake
#              cuLaunchKernel. The kernel itself is compiled by the build when nvcc exists.
include(GoogleTest)

add_executable(scan_test
  ${CMAKE_CURRENT_LIST_DIR}/scan_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operand_scan_test.cpp)
target_link_libraries(scan_test PRIVATE cublasspy_scan cublasspy_dump cuda_headers GTest::gtest_main)
target_compile_options(scan_test PRIVATE -Wall -Wextra)
gtest_discover_tests(scan_test TEST_PREFIX scan.)

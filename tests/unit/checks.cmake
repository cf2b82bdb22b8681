# The argument checks of CUBLASSPY_CHECK=1 (included by the unit tests' CMakeLists).
#   checks_test:        the pure checks and their messages (src/checks: operand_checks, check_ids)
#   checks_driver_test: the shim's driver side (interpose/live_checks.cpp, with the call's GEMM
#                       view, interpose/gemm_view.cpp) against a fake driver table
#                       (src/cuda_driver/driver_api.h), with the few shim functions it calls stubbed
# ctest names: checks.<Suite>.<Test>.
include(GoogleTest)

add_executable(checks_test ${CMAKE_CURRENT_LIST_DIR}/checks_test.cpp)
target_link_libraries(checks_test PRIVATE cublasspy_checks cublasspy_trace_reader GTest::gtest_main)
target_compile_options(checks_test PRIVATE -Wall -Wextra)
gtest_discover_tests(checks_test TEST_PREFIX checks.)

add_executable(checks_driver_test ${CMAKE_CURRENT_LIST_DIR}/checks_driver_test.cpp
               ${PROJECT_SOURCE_DIR}/interpose/live_checks.cpp ${PROJECT_SOURCE_DIR}/interpose/gemm_view.cpp)
target_include_directories(checks_driver_test PRIVATE ${PROJECT_SOURCE_DIR}/interpose)
target_link_libraries(checks_driver_test PRIVATE cublasspy_checks cublasspy_spec cublasspy_settings
                      cuda_headers GTest::gtest_main)
target_compile_options(checks_driver_test PRIVATE -Wall -Wextra)
gtest_discover_tests(checks_driver_test TEST_PREFIX checks.)

# Unit tests of core pieces that need no program under the shim.
#   call_clock_test: the TSC-backed call timestamps (src/call_clock) against clock_gettime
# ctest names: unit.<Suite>.<Test>.
include(GoogleTest)

add_executable(call_clock_test ${CMAKE_CURRENT_LIST_DIR}/call_clock_test.cpp)
target_link_libraries(call_clock_test PRIVATE cublasspy_core GTest::gtest_main Threads::Threads)
target_compile_options(call_clock_test PRIVATE -Wall -Wextra)
gtest_discover_tests(call_clock_test TEST_PREFIX unit.)

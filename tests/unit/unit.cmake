# Unit tests of core pieces that need no program under the shim.
#   call_clock_test:   the TSC-backed call timestamps (src/trace/call_clock) against clock_gettime
#   shadow_table_test: interpose/shadow_table.h, the handle and descriptor shadow table
#   format_doc_test:   docs/FORMAT.md's tables against src/trace/trace_format.h
# ctest names: unit.<Suite>.<Test>.
include(GoogleTest)

add_executable(call_clock_test ${CMAKE_CURRENT_LIST_DIR}/call_clock_test.cpp)
target_link_libraries(call_clock_test PRIVATE cublasspy_trace GTest::gtest_main Threads::Threads)
target_compile_options(call_clock_test PRIVATE -Wall -Wextra)
gtest_discover_tests(call_clock_test TEST_PREFIX unit.)

#   shadow_table_test: the shim's lock-free table of handles and descriptors under churn
add_executable(shadow_table_test ${CMAKE_CURRENT_LIST_DIR}/shadow_table_test.cpp)
target_include_directories(shadow_table_test PRIVATE ${PROJECT_SOURCE_DIR}/interpose)
target_link_libraries(shadow_table_test PRIVATE GTest::gtest_main Threads::Threads)
target_compile_options(shadow_table_test PRIVATE -Wall -Wextra)
gtest_discover_tests(shadow_table_test TEST_PREFIX unit.)

#   format_doc_test: docs/FORMAT.md's field, enum and constant tables against trace_format.h. The
#   header is all it needs: cublasspy_trace's include directories, without building the library.
add_executable(format_doc_test ${CMAKE_CURRENT_LIST_DIR}/format_doc_test.cpp)
target_include_directories(format_doc_test PRIVATE $<TARGET_PROPERTY:cublasspy_trace,INTERFACE_INCLUDE_DIRECTORIES>)
target_compile_definitions(format_doc_test PRIVATE CUBLASSPY_FORMAT_DOC="${PROJECT_SOURCE_DIR}/docs/FORMAT.md")
target_link_libraries(format_doc_test PRIVATE GTest::gtest_main)
target_compile_options(format_doc_test PRIVATE -Wall -Wextra)
gtest_discover_tests(format_doc_test TEST_PREFIX unit.)

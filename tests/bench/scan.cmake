# CUBLASSPY_SCAN's costs (included by tests/CMakeLists.txt): the host path's throughput and the
# GPU kernel's modelled memory traffic. Run: <build>/bin/scan_bench (not a ctest test).
add_executable(scan_bench ${CMAKE_CURRENT_LIST_DIR}/scan_bench.cpp)
target_link_libraries(scan_bench PRIVATE cublasspy_scan cublasspy_dump benchmark::benchmark)
target_compile_options(scan_bench PRIVATE -Wall -Wextra)

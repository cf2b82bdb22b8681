# Benchmarks (Google Benchmark): built with the tests, run by scripts/bench.sh, not by ctest
# except for a short smoke run that proves they still work.
cublasspy_test_program(call_overhead_bench ${CMAKE_CURRENT_LIST_DIR}/call_overhead_bench.cpp)
target_link_libraries(call_overhead_bench PRIVATE benchmark::benchmark)
# Its trace (15 MiB) goes to a directory of its own, removed afterwards: one was left in the
# build directory by every ctest run.
add_test(NAME bench.call_overhead_smoke
         COMMAND sh -c "dir=$(mktemp -d) && CUBLASSPY_TRACE=\"$dir/bench-%p.cbt\" \"$0\" \"$@\"; rc=$?; rm -rf \"$dir\"; exit $rc"
                 $<TARGET_FILE:call_overhead_bench> --benchmark_min_time=0.01 --benchmark_filter=Sgemm)
set_tests_properties(bench.call_overhead_smoke PROPERTIES ENVIRONMENT "CUBLASSPY_SHIM=$<TARGET_FILE:cublasspy>")

add_executable(reader_bench ${CMAKE_CURRENT_LIST_DIR}/reader_bench.cpp)
target_link_libraries(reader_bench PRIVATE cublasspy_trace_reader benchmark::benchmark)
set_target_properties(reader_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)
add_test(NAME bench.reader_smoke COMMAND reader_bench --benchmark_min_time=0.01 --benchmark_filter=BM_ReadTrace/16384)

cublasspy_test_program(call_loop ${CMAKE_CURRENT_LIST_DIR}/call_loop.cpp)

# The floor of any interposer of the PyTorch loop's four calls (bench_mm_lockstep.py --floor).
add_library(forwarding_interposer SHARED ${CMAKE_CURRENT_LIST_DIR}/forwarding_interposer.cpp)
target_link_libraries(forwarding_interposer PRIVATE cuda_headers ${CMAKE_DL_LIBS})
target_compile_options(forwarding_interposer PRIVATE -fvisibility=hidden)
set_target_properties(forwarding_interposer PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)

# The Python location's own cost (interpose/python_stack.cpp, compiled in): a process that embeds
# CPython (libpython3-dev, scripts/setup.sh) walks real nested frames.
find_package(Python3 REQUIRED COMPONENTS Development.Embed)
add_executable(python_location_bench ${CMAKE_CURRENT_LIST_DIR}/python_location_bench.cpp
               ${PROJECT_SOURCE_DIR}/interpose/python_stack.cpp)
target_include_directories(python_location_bench PRIVATE ${PROJECT_SOURCE_DIR}/interpose ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(python_location_bench PRIVATE Python3::Python benchmark::benchmark ${CMAKE_DL_LIBS})
set_target_properties(python_location_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)
add_test(NAME bench.python_location_smoke
         COMMAND python_location_bench --benchmark_min_time=0.01 --benchmark_filter=/16)

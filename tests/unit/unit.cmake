# Unit tests of core pieces that need no program under the shim.
#   call_clock_test:   the TSC-backed call timestamps (src/clock/call_clock) against clock_gettime
#   shadow_table_test: interpose/shadow_table.h, the handle and descriptor shadow table
#   handle_lookup_test: interpose/runtime.h's find_handle, the per-thread memory of a look-up
#   format_doc_test:   docs/FORMAT.md's tables against src/trace/trace_format.h
#   diagnosis_ids_doc_test: docs/DIAGNOSES.md and CONTRACT.md against src/common/diagnosis_ids.h
#   kernel_causes_test: the table of PyTorch's kernels and their usual causes (src/diagnose)
# ctest names: unit.<Suite>.<Test>.
include(GoogleTest)

add_executable(call_clock_test ${CMAKE_CURRENT_LIST_DIR}/call_clock_test.cpp)
target_link_libraries(call_clock_test PRIVATE cublasspy_clock GTest::gtest_main Threads::Threads)
target_compile_options(call_clock_test PRIVATE -Wall -Wextra)
gtest_discover_tests(call_clock_test TEST_PREFIX unit.)

#   shadow_table_test: the shim's lock-free table of handles and descriptors under churn
add_executable(shadow_table_test ${CMAKE_CURRENT_LIST_DIR}/shadow_table_test.cpp)
target_include_directories(shadow_table_test PRIVATE ${PROJECT_SOURCE_DIR}/interpose)
target_link_libraries(shadow_table_test PRIVATE GTest::gtest_main Threads::Threads)
target_compile_options(shadow_table_test PRIVATE -Wall -Wextra)
gtest_discover_tests(shadow_table_test TEST_PREFIX unit.)

#   handle_lookup_test: the shim's per-thread memory of its last handle look-up (runtime.h)
add_executable(handle_lookup_test ${CMAKE_CURRENT_LIST_DIR}/handle_lookup_test.cpp
               ${PROJECT_SOURCE_DIR}/interpose/handle_registry.cpp)
target_include_directories(handle_lookup_test PRIVATE ${PROJECT_SOURCE_DIR}/interpose ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(handle_lookup_test PRIVATE cuda_headers GTest::gtest_main Threads::Threads)
target_compile_options(handle_lookup_test PRIVATE -Wall -Wextra)
gtest_discover_tests(handle_lookup_test TEST_PREFIX unit.)

#   format_doc_test: docs/FORMAT.md's field, enum and constant tables against trace_format.h and
#   the field lists of trace_format_fields.h. The headers are all it needs: cublasspy_trace's
#   include directories, without building the library.
add_executable(format_doc_test ${CMAKE_CURRENT_LIST_DIR}/format_doc_test.cpp)
target_include_directories(format_doc_test PRIVATE $<TARGET_PROPERTY:cublasspy_trace,INTERFACE_INCLUDE_DIRECTORIES>)
target_include_directories(format_doc_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(format_doc_test PRIVATE CUBLASSPY_FORMAT_DOC="${PROJECT_SOURCE_DIR}/docs/FORMAT.md"
                           CUBLASSPY_FORMAT_HEADER="${PROJECT_SOURCE_DIR}/src/trace/trace_format.h")
target_link_libraries(format_doc_test PRIVATE GTest::gtest_main)
target_compile_options(format_doc_test PRIVATE -Wall -Wextra)
gtest_discover_tests(format_doc_test TEST_PREFIX unit.)

#   diagnosis_ids_doc_test: the diagnosis ids' registry (src/common/diagnosis_ids.h, header-only)
#   against docs/DIAGNOSES.md and docs/CONTRACT.md, and the sources' use of it.
add_executable(diagnosis_ids_doc_test ${CMAKE_CURRENT_LIST_DIR}/diagnosis_ids_doc_test.cpp)
target_include_directories(diagnosis_ids_doc_test PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
target_compile_definitions(diagnosis_ids_doc_test PRIVATE
  CUBLASSPY_DIAGNOSES_DOC="${PROJECT_SOURCE_DIR}/docs/DIAGNOSES.md"
  CUBLASSPY_CONTRACT_DOC="${PROJECT_SOURCE_DIR}/docs/CONTRACT.md"
  CUBLASSPY_DIAGNOSIS_IDS_HEADER="${PROJECT_SOURCE_DIR}/src/common/diagnosis_ids.h"
  CUBLASSPY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(diagnosis_ids_doc_test PRIVATE GTest::gtest_main)
target_compile_options(diagnosis_ids_doc_test PRIVATE -Wall -Wextra)
gtest_discover_tests(diagnosis_ids_doc_test TEST_PREFIX unit.)

#   cuda_names_test: the CUDA vocabulary (src/common/cuda_names) against every enumerator of the
#   toolkit's headers, listed at build time by the parse that generates the table; the compiler
#   gives the values. common.cuda_names_current: the committed table is what the generator
#   makes of this toolkit's headers (and of the other toolkits' rows it keeps).
list(GET CUDAToolkit_INCLUDE_DIRS 0 cbs_cuda_include)
set(cbs_gen_names ${PROJECT_SOURCE_DIR}/scripts/gen_cuda_names.py)
set(cbs_enumerators_dir ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(OUTPUT ${cbs_enumerators_dir}/cuda_enumerators.inc
  COMMAND ${CMAKE_COMMAND} -E make_directory ${cbs_enumerators_dir}
  COMMAND ${CUBLASSPY_TEST_PYTHON} ${cbs_gen_names} enumerators ${cbs_cuda_include}
          ${cbs_enumerators_dir}/cuda_enumerators.inc
  DEPENDS ${cbs_gen_names} ${cbs_cuda_include}/library_types.h ${cbs_cuda_include}/driver_types.h
          ${cbs_cuda_include}/cuda.h ${cbs_cuda_include}/cublas_api.h ${cbs_cuda_include}/cublasLt.h
  COMMENT "Listing the CUDA headers' enumerators for cuda_names_test" VERBATIM)
#   and lt_algo_config_test: a preset algorithm's bytes decoded by the real libcublasLt.
add_executable(cuda_names_test ${CMAKE_CURRENT_LIST_DIR}/cuda_names_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/lt_algo_config_test.cpp
                               ${cbs_enumerators_dir}/cuda_enumerators.inc)
target_include_directories(cuda_names_test PRIVATE ${cbs_enumerators_dir})
target_link_directories(cuda_names_test PRIVATE ${CUBLASSPY_CUDA_LIBDIR})
target_link_libraries(cuda_names_test PRIVATE cublasspy_present cublasspy_common cuda_headers
                      GTest::gtest_main -lcublasLt)
set_target_properties(cuda_names_test PROPERTIES BUILD_RPATH ${CUBLASSPY_CUDA_LIBDIR})
target_compile_options(cuda_names_test PRIVATE -Wall -Wextra)
gtest_discover_tests(cuda_names_test TEST_PREFIX unit.)
add_test(NAME common.cuda_names_current
         COMMAND ${CUBLASSPY_TEST_PYTHON} ${cbs_gen_names} check
                 ${PROJECT_SOURCE_DIR}/src/common/cuda_names.inc ${cbs_cuda_include})

#   process_test: process::run, the one way the tools and the doctor start a process
add_executable(process_test ${CMAKE_CURRENT_LIST_DIR}/process_test.cpp)
target_link_libraries(process_test PRIVATE cublasspy_process GTest::gtest_main)
target_compile_options(process_test PRIVATE -Wall -Wextra)
gtest_discover_tests(process_test TEST_PREFIX unit.)

#   side_area_test: the trace's side area (format::SideEntry), written and read back
add_executable(side_area_test ${CMAKE_CURRENT_LIST_DIR}/side_area_test.cpp)
target_link_libraries(side_area_test PRIVATE cublasspy_trace_reader GTest::gtest_main Threads::Threads)
target_compile_options(side_area_test PRIVATE -Wall -Wextra)
gtest_discover_tests(side_area_test TEST_PREFIX unit.)

#   slot_fields_test: the slot's fields that only some families use, not shown on a reused slot's later call
add_executable(slot_fields_test ${CMAKE_CURRENT_LIST_DIR}/slot_fields_test.cpp)
target_link_libraries(slot_fields_test PRIVATE cublasspy_present GTest::gtest_main Threads::Threads)
target_compile_options(slot_fields_test PRIVATE -Wall -Wextra)
gtest_discover_tests(slot_fields_test TEST_PREFIX unit.)

#   kernel_causes_test: the table of PyTorch's kernels and their usual causes, matched by real
#   kernels' names (src/diagnose/kernel_causes)
add_executable(kernel_causes_test ${CMAKE_CURRENT_LIST_DIR}/kernel_causes_test.cpp)
target_link_libraries(kernel_causes_test PRIVATE cublasspy_diagnose GTest::gtest_main)
target_compile_options(kernel_causes_test PRIVATE -Wall -Wextra)
gtest_discover_tests(kernel_causes_test TEST_PREFIX unit.)
#   fatbin_archs_test: the architectures of a fatbin (src/machine/fatbin_archs.h) from a real one
#   nvcc built (tests/diagnoses/diagnoses.cmake), and from its truncations and corruptions
add_executable(fatbin_archs_test ${CMAKE_CURRENT_LIST_DIR}/fatbin_archs_test.cpp)
target_link_libraries(fatbin_archs_test PRIVATE cublasspy_machine GTest::gtest_main)
target_compile_options(fatbin_archs_test PRIVATE -Wall -Wextra)
target_compile_definitions(fatbin_archs_test PRIVATE
  CBS_TEST_FATBIN="${CMAKE_BINARY_DIR}/test-programs/kernel_image_sm80_compute90.fatbin"
  CBS_TEST_KERNEL_PROGRAM="${CMAKE_BINARY_DIR}/test-programs/diag_kernel_image_lacks")
add_dependencies(fatbin_archs_test diag_kernel_image)
gtest_discover_tests(fatbin_archs_test TEST_PREFIX unit.)
#   gpu_health_test: the Xid table and the gpu-hardware-fault finding over NVML's entries
add_executable(gpu_health_test ${CMAKE_CURRENT_LIST_DIR}/gpu_health_test.cpp)
target_link_libraries(gpu_health_test PRIVATE cublasspy_diagnose GTest::gtest_main)
target_compile_options(gpu_health_test PRIVATE -Wall -Wextra)
gtest_discover_tests(gpu_health_test TEST_PREFIX unit.)

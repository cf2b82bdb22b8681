# The diagnosis rules and `cublasspy doctor` (included by tests/CMakeLists.txt). ctest names:
# diagnoses.<Suite>.<Test>.
#
# The rule tests run real programs (programs/) under the real shim, on the CPU stand-in with its
# faults or on the real CUDA libraries of a machine without a driver, and diagnose the traces
# those runs wrote. The doctor tests fake /proc, /dev, /etc and library directories under a
# temporary root, and run the real probe against the stand-in and this machine.
set(CBS_DIAG_DIR ${CMAKE_CURRENT_LIST_DIR})

cublasspy_test_program(diag_workload ${CBS_DIAG_DIR}/programs/diag_workload.cpp)
cublasspy_test_program(diag_fork ${CBS_DIAG_DIR}/programs/diag_fork.cpp)
cublasspy_test_program(diag_samples ${CBS_DIAG_DIR}/programs/diag_samples.cpp)
cublasspy_test_program(diag_second_cublas ${CBS_DIAG_DIR}/programs/diag_second_cublas.cpp)
cublasspy_test_program(diag_located ${CBS_DIAG_DIR}/programs/diag_located.cpp)
cublasspy_test_program(diag_graph ${CBS_DIAG_DIR}/programs/diag_graph.cpp)
cublasspy_test_program(diag_reported ${CBS_DIAG_DIR}/programs/diag_reported.cpp)
cublasspy_test_program(diag_lt_words ${CBS_DIAG_DIR}/programs/diag_lt_words.cpp)
set_target_properties(diag_reported PROPERTIES ENABLE_EXPORTS ON)  # -rdynamic: dladdr names where it reported
set_target_properties(diag_located PROPERTIES ENABLE_EXPORTS ON)  # -rdynamic: dladdr names its functions
# Built as with --default-stream per-thread: its copies, memsets and queries are the _ptds/_ptsz
# forms, runtime and driver (the toolkit's stub libcuda to link; the stand-in's at run time).
cublasspy_test_program(diag_per_thread ${CBS_DIAG_DIR}/programs/diag_per_thread.cpp)
target_compile_definitions(diag_per_thread PRIVATE CUDA_API_PER_THREAD_DEFAULT_STREAM)
target_link_directories(diag_per_thread PRIVATE ${CUBLASSPY_CUDA_LIBDIR}/stubs)
target_link_libraries(diag_per_thread PRIVATE cuda)
# The same program with an old-style DT_RPATH to the stand-in: RPATH outranks LD_LIBRARY_PATH,
# so the process loads other libraries than LD_LIBRARY_PATH points at (what old binaries do).
cublasspy_test_program(diag_second_cublas_rpath ${CBS_DIAG_DIR}/programs/diag_second_cublas.cpp)
set_target_properties(diag_second_cublas_rpath PROPERTIES BUILD_RPATH ${CUBLASSPY_STANDIN_DIR})
target_link_options(diag_second_cublas_rpath PRIVATE -Wl,--disable-new-dtags)

# A kernel of the program's own that faults, then a GEMM: built by nvcc when the toolkit has it
# (the test fails, naming the missing program, when not).
if(CUBLASSPY_NVCC AND NOT CUBLASSPY_SANITIZE)
  set(diag_kernel_fault ${CMAKE_BINARY_DIR}/test-programs/diag_kernel_fault)
  add_custom_command(OUTPUT ${diag_kernel_fault}
    COMMAND ${CUBLASSPY_NVCC} --cudart=shared -arch=sm_90 -Xlinker --export-dynamic -o ${diag_kernel_fault}
            ${CBS_DIAG_DIR}/programs/diag_kernel_fault.cu -lcublas -L${CUDAToolkit_LIBRARY_DIR}/stubs -lcuda
    DEPENDS ${CBS_DIAG_DIR}/programs/diag_kernel_fault.cu
    COMMENT "nvcc: diag_kernel_fault" VERBATIM)
  add_custom_target(diag_kernel_fault ALL DEPENDS ${diag_kernel_fault})
else()
  add_custom_target(diag_kernel_fault)
endif()

add_executable(doctor_json ${CBS_DIAG_DIR}/programs/doctor_json.cpp)
target_link_libraries(doctor_json PRIVATE cublasspy_tools cublasspy_doctor)
set_target_properties(doctor_json PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)

add_executable(diagnoses_test
  ${CBS_DIAG_DIR}/driver_rules_test.cpp
  ${CBS_DIAG_DIR}/device_rules_test.cpp
  ${CBS_DIAG_DIR}/cublas_init_test.cpp
  ${CBS_DIAG_DIR}/fork_test.cpp
  ${CBS_DIAG_DIR}/mixed_libraries_test.cpp
  ${CBS_DIAG_DIR}/crash_test.cpp
  ${CBS_DIAG_DIR}/async_test.cpp
  ${CBS_DIAG_DIR}/execution_failed_test.cpp
  ${CBS_DIAG_DIR}/out_of_memory_test.cpp
  ${CBS_DIAG_DIR}/checks_scan_test.cpp
  ${CBS_DIAG_DIR}/samples_test.cpp
  ${CBS_DIAG_DIR}/graph_test.cpp
  ${CBS_DIAG_DIR}/reported_error_test.cpp
  ${CBS_DIAG_DIR}/doctor_machine_test.cpp
  ${CBS_DIAG_DIR}/doctor_probe_test.cpp
  ${CBS_DIAG_DIR}/machine_evidence_test.cpp
  ${CBS_DIAG_DIR}/load_failure_test.cpp
  ${CBS_DIAG_DIR}/no_kernel_image_test.cpp
  ${CBS_DIAG_DIR}/gpu_hardware_test.cpp
  ${CBS_DIAG_DIR}/lt_words_test.cpp)
target_link_libraries(diagnoses_test PRIVATE cublasspy_test_support cublasspy_diagnose cublasspy_doctor cublasspy_dump
                      nlohmann_json::nlohmann_json GTest::gtest_main ${CMAKE_DL_LIBS})
target_compile_options(diagnoses_test PRIVATE -Wall -Wextra)
# The shim, stand-in, program and CUDA paths come with cublasspy_test_support (tests/support).
target_compile_definitions(diagnoses_test PRIVATE CBS_TEST_CLI="$<TARGET_FILE:cublasspy_cli>"
                           CBS_TEST_REPLAY_RUNNER="$<TARGET_FILE:cublasspy_replay_runner>")
add_dependencies(diagnoses_test cublasspy cublasspy_cli cublasspy_replay_runner standin standin_nvml diag_workload diag_fork diag_samples diag_second_cublas
                 diag_per_thread diag_graph diag_reported diag_lt_words
                 diag_second_cublas_rpath doctor_json diag_kernel_fault diag_kernel_image)
gtest_discover_tests(diagnoses_test TEST_PREFIX diagnoses. DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 300)


# CUBLASSPY_STACKS: the locations of a failing and of a crashing call (diag_located).
add_executable(locations_test ${CBS_DIAG_DIR}/locations_test.cpp)
target_link_libraries(locations_test PRIVATE cublasspy_test_support GTest::gtest_main)
target_compile_options(locations_test PRIVATE -Wall -Wextra)
add_dependencies(locations_test cublasspy standin diag_located)
gtest_discover_tests(locations_test TEST_PREFIX diagnoses. DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)

# Failure storms: a call failed thousands of times from one place (diag_failure_storm).
cublasspy_test_program(diag_failure_storm ${CBS_DIAG_DIR}/programs/diag_failure_storm.cpp)
set_target_properties(diag_failure_storm PROPERTIES ENABLE_EXPORTS ON)  # -rdynamic: dladdr names its functions
add_executable(failure_sites_test ${CBS_DIAG_DIR}/failure_sites_test.cpp)
target_link_libraries(failure_sites_test PRIVATE cublasspy_test_support GTest::gtest_main)
target_compile_options(failure_sites_test PRIVATE -Wall -Wextra)
add_dependencies(failure_sites_test cublasspy cublasspy_cli standin diag_failure_storm)
gtest_discover_tests(failure_sites_test TEST_PREFIX diagnoses. DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120)

# A kernel of the program's own, built by nvcc three ways for the stand-in's 9.0 device: with no
# code it runs (sm_80 SASS, compute_100 PTX), with code it runs only through PTX (sm_80 SASS,
# compute_90 PTX) and with its SASS (sm_80 and sm_90); and the second's fatbin alone, for the fatbin
# parser's unit test (tests/unit/fatbin_archs_test.cpp). Built when the toolkit has nvcc (the
# tests fail, naming the missing file, when not).
set(CBS_KERNEL_IMAGE_CU ${CBS_DIAG_DIR}/programs/diag_kernel_image.cu)
set(CBS_KERNEL_IMAGE_FATBIN ${CMAKE_BINARY_DIR}/test-programs/kernel_image_sm80_compute90.fatbin)
if(CUBLASSPY_NVCC AND NOT CUBLASSPY_SANITIZE)
  set(cbs_kernel_image_outputs "")
  foreach(variant "lacks;compute_80,code=sm_80;compute_100,code=compute_100"
                  "ptx;compute_80,code=sm_80;compute_90,code=compute_90"
                  "has;compute_80,code=sm_80;compute_90,code=sm_90")
    list(GET variant 0 name)
    list(GET variant 1 first)
    list(GET variant 2 second)
    set(out ${CMAKE_BINARY_DIR}/test-programs/diag_kernel_image_${name})
    add_custom_command(OUTPUT ${out}
      COMMAND ${CUBLASSPY_NVCC} --cudart=shared -gencode arch=${first} -gencode arch=${second}
              -o ${out} ${CBS_KERNEL_IMAGE_CU}
      DEPENDS ${CBS_KERNEL_IMAGE_CU} COMMENT "nvcc: diag_kernel_image_${name}" VERBATIM)
    list(APPEND cbs_kernel_image_outputs ${out})
  endforeach()
  add_custom_command(OUTPUT ${CBS_KERNEL_IMAGE_FATBIN}
    COMMAND ${CUBLASSPY_NVCC} -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
            -fatbin -o ${CBS_KERNEL_IMAGE_FATBIN} ${CBS_KERNEL_IMAGE_CU}
    DEPENDS ${CBS_KERNEL_IMAGE_CU} COMMENT "nvcc: the fatbin of diag_kernel_image" VERBATIM)
  add_custom_target(diag_kernel_image ALL DEPENDS ${cbs_kernel_image_outputs} ${CBS_KERNEL_IMAGE_FATBIN})
else()
  add_custom_target(diag_kernel_image)
endif()

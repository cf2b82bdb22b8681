# Hardening tests, included by tests/CMakeLists.txt: the shim under stress (threads, handle
# churn, fork storms, exec), faults around it (the trace file truncated or deleted while
# the process runs, a full disk, a file-size limit, nowhere to write, signals in and around
# calls, the program's own signal handlers), security (file modes, links, no operand data,
# set-user-ID programs), the CLI on damaged traces, and the fuzz corpus replayed through the
# fuzz targets' own code (tests/fuzz). Programs run on the CPU stand-in; no test needs a GPU.
# ctest names: hardening.<Suite>.<Test>, hardening.fuzz_corpus.<target>.
set(HARDENING_DIR ${CMAKE_CURRENT_LIST_DIR})
set(HARDENING_FUZZ_DIR ${PROJECT_SOURCE_DIR}/tests/fuzz)

# --- Subject programs: linked against the real toolkit, run on the stand-in, never sanitized
# (the shim is preloaded into them; see integration.cmake) -----------------------------------
set(HARDENING_PROGRAMS stress_threads fork_storm exec_child exec_after_cuda signal_host phased_calls
    secret_operands shim_alloc_faults)
foreach(p ${HARDENING_PROGRAMS})
  cublasspy_test_program(hard_${p} ${HARDENING_DIR}/programs/${p}.cpp)
  if(CUBLASSPY_SANITIZE)
    target_compile_options(hard_${p} PRIVATE -fno-sanitize=all)
    target_link_options(hard_${p} PRIVATE -fno-sanitize=all)
  endif()
endforeach()
# Exports its malloc (it refuses the shim's allocations), so the shim's operator new reaches it.
target_link_options(hard_shim_alloc_faults PRIVATE -rdynamic)
# A cuBLAS call from the destructor of a library the program links, finalized after the shim.
add_library(hard_exit_late SHARED ${HARDENING_DIR}/programs/exit_late_call.cpp)
target_link_libraries(hard_exit_late PRIVATE cuda_headers)
add_executable(hard_exit_warning ${HARDENING_DIR}/programs/exit_warning.cpp)
target_link_libraries(hard_exit_warning PRIVATE cuda_headers hard_exit_late dl)
set_target_properties(hard_exit_late PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)
set_target_properties(hard_exit_warning PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)
if(CUBLASSPY_SANITIZE)
  foreach(t hard_exit_late hard_exit_warning)
    target_compile_options(${t} PRIVATE -fno-sanitize=all)
    target_link_options(${t} PRIVATE -fno-sanitize=all)
  endforeach()
endif()
list(APPEND HARDENING_PROGRAMS exit_warning)
# No CUDA library: it dlopens the shim itself (a set-user-ID process ignores LD_PRELOAD paths).
add_executable(hard_secure_probe ${HARDENING_DIR}/programs/secure_probe.c)
target_link_libraries(hard_secure_probe PRIVATE dl)
set_target_properties(hard_secure_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs)
if(CUBLASSPY_SANITIZE)
  target_compile_options(hard_secure_probe PRIVATE -fno-sanitize=all)
  target_link_options(hard_secure_probe PRIVATE -fno-sanitize=all)
endif()

# Linked against the integration tests' null CUDA runtime (no state, no locks of its own).
if(TARGET shim_null_cudart)
  add_executable(hard_fork_during_setup ${HARDENING_DIR}/programs/fork_during_setup.cpp)
  target_link_libraries(hard_fork_during_setup PRIVATE cuda_headers shim_null_cudart Threads::Threads)
  set_target_properties(hard_fork_during_setup PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-programs BUILD_RPATH ${CMAKE_BINARY_DIR}/null_cuda)
  if(CUBLASSPY_SANITIZE)
    target_compile_options(hard_fork_during_setup PRIVATE -fno-sanitize=all)
    target_link_options(hard_fork_during_setup PRIVATE -fno-sanitize=all)
  endif()
  list(APPEND HARDENING_PROGRAMS fork_during_setup)
endif()

# --- The tests (they build on tests/support's shim_tests.h) ------------------------------------
if(TARGET cublasspy_test_support)
  add_executable(hardening_test
    ${HARDENING_DIR}/stress_test.cpp
    ${HARDENING_DIR}/fork_exec_test.cpp
    ${HARDENING_DIR}/exec_end_test.cpp
    ${HARDENING_DIR}/keep_policy_test.cpp
    ${HARDENING_DIR}/trace_file_faults_test.cpp
    ${HARDENING_DIR}/host_signals_test.cpp
    ${HARDENING_DIR}/security_test.cpp
    ${HARDENING_DIR}/shim_safety_test.cpp)
  target_include_directories(hardening_test PRIVATE ${HARDENING_DIR})
  target_link_libraries(hardening_test PRIVATE cublasspy_test_support GTest::gtest_main)
  target_compile_options(hardening_test PRIVATE -Wall -Wextra)
  target_compile_definitions(hardening_test PRIVATE
    CUBLASSPY_TOOL_PATH="$<TARGET_FILE:cublasspy_cli>"
    CUBLASSPY_FUZZ_CORPUS="${HARDENING_FUZZ_DIR}/corpus")
  add_dependencies(hardening_test cublasspy cublasspy_cli hard_secure_probe shim_sgemm_loop shim_failing_dlopen
                   shim_fork_after_init)
  foreach(p ${HARDENING_PROGRAMS})
    add_dependencies(hardening_test hard_${p})
  endforeach()  # (fork_during_setup included when the null CUDA stack exists)
  if(TARGET standin)
    add_dependencies(hardening_test standin)
  endif()
  gtest_discover_tests(hardening_test TEST_PREFIX hardening. DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 180)

  # The CLI on damaged traces: an executable of its own, so that the sanitizer builds can build
  # and run it without the shim, the stand-in and the subject programs. scripts/sanitize.sh runs
  # it against the ASan+UBSan CLI of the fuzz build (CUBLASSPY_REJECTS_TOOL).
  add_executable(hardening_rejects_test ${HARDENING_DIR}/report_rejects_test.cpp)
  target_include_directories(hardening_rejects_test PRIVATE ${HARDENING_DIR})
  target_link_libraries(hardening_rejects_test PRIVATE cublasspy_test_support GTest::gtest_main)
  target_compile_options(hardening_rejects_test PRIVATE -Wall -Wextra)
  target_compile_definitions(hardening_rejects_test PRIVATE
    CUBLASSPY_TOOL_PATH="$<TARGET_FILE:cublasspy_cli>"
    CUBLASSPY_FUZZ_CORPUS="${HARDENING_FUZZ_DIR}/corpus")
  if(NOT CUBLASSPY_SANITIZE)
    add_dependencies(hardening_rejects_test cublasspy_cli)
  endif()
  gtest_discover_tests(hardening_rejects_test TEST_PREFIX hardening. DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 180)
endif()

# The writer's ring under threads, in-process: the part of the shim the sanitizers can see.
# The reader's two ways through a ring (copy, mapping) and format versions 1 and 2, alongside.
add_executable(hardening_writer_test ${HARDENING_DIR}/writer_threads_test.cpp
                                     ${HARDENING_DIR}/reader_access_test.cpp
                                     ${HARDENING_DIR}/reader_versions_test.cpp)
target_link_libraries(hardening_writer_test PRIVATE cublasspy_present cublasspy_spec GTest::gtest_main Threads::Threads)
target_compile_options(hardening_writer_test PRIVATE -Wall -Wextra)
target_compile_definitions(hardening_writer_test PRIVATE CUBLASSPY_FUZZ_CORPUS="${HARDENING_FUZZ_DIR}/corpus")
gtest_discover_tests(hardening_writer_test TEST_PREFIX hardening. DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 300
                     ENVIRONMENT "TSAN_OPTIONS=suppressions=${HARDENING_DIR}/tsan.supp")

# --- The fuzz targets' code under gcc: every corpus file through LLVMFuzzerTestOneInput ---------
# (the clang/libFuzzer build is scripts/fuzz.sh; this keeps the corpus a regression test in the
# ordinary build, sanitized in the sanitizer builds).
foreach(target trace_reader config)
  add_executable(hardening_fuzz_${target} ${HARDENING_FUZZ_DIR}/${target}_fuzz.cpp
                                          ${HARDENING_FUZZ_DIR}/replay_main.cpp)
  target_compile_options(hardening_fuzz_${target} PRIVATE -Wall -Wextra)
  add_test(NAME hardening.fuzz_corpus.${target}
           COMMAND hardening_fuzz_${target} ${HARDENING_FUZZ_DIR}/corpus/${target})
  set_tests_properties(hardening.fuzz_corpus.${target} PROPERTIES TIMEOUT 300)
endforeach()
target_link_libraries(hardening_fuzz_trace_reader PRIVATE cublasspy_tools)
target_link_libraries(hardening_fuzz_config PRIVATE cublasspy_settings)

# No trace or dump committed outside tests/ (one with a developer's environment once was).
add_test(NAME hardening.repository.NoTraceOutsideTests
         COMMAND sh ${HARDENING_DIR}/no_stray_traces.sh ${PROJECT_SOURCE_DIR})

# The installed binaries start where only glibc (of the documented floor) is there.
if(NOT CUBLASSPY_SANITIZE)
  add_test(NAME hardening.repository.SelfContained
           COMMAND sh ${HARDENING_DIR}/self_contained.sh ${CUBLASSPY_GLIBC_FLOOR}
                   $<TARGET_FILE:cublasspy> $<TARGET_FILE:cublasspy_cli> $<TARGET_FILE:cublasspy_replay_runner>)
endif()

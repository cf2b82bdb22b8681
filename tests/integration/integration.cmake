# Integration tests of the shim, included by tests/CMakeLists.txt. Real
# programs run under the real libcublasspy.so: against the real CUDA 13 libraries (no driver
# here, so they fail for real), against the CPU stand-in (standin/), and, for the per-hook
# round trip, against a "null" CUDA stack generated from the hook list. No test needs a GPU.
# ctest names: shim.<Suite>.<Test>, shim.AllHooks/HookRoundTrip.*, shim.hook_coverage.
set(SHIM_IT_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SHIM_IT_PROGRAM_DIR ${CUBLASSPY_TEST_PROGRAM_DIR})
set(SHIM_IT_NULL_CUDA_DIR ${CMAKE_BINARY_DIR}/null_cuda)

# Programs and libraries that run with the shim preloaded are never sanitized: a sanitizer
# runtime must come first in the library list, which LD_PRELOAD of the shim prevents.
function(shim_it_unsanitized target)
  if(CUBLASSPY_SANITIZE)
    target_compile_options(${target} PRIVATE -fno-sanitize=all)
    target_link_options(${target} PRIVATE -fno-sanitize=all)
  endif()
endfunction()

# A subject that places itself in test-programs without cublasspy_test_program's CUDA links.
function(shim_it_place target)
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${SHIM_IT_PROGRAM_DIR}
                                             LIBRARY_OUTPUT_DIRECTORY ${SHIM_IT_PROGRAM_DIR})
  shim_it_unsanitized(${target})
endfunction()

# --- Subject programs linked against the real toolkit (LD_LIBRARY_PATH picks the stand-in) ---
set(SHIM_IT_TOOLKIT_PROGRAMS driverless_calls sgemm_loop sgemm_threads fork_after_init
    gemm_ex_half lt_matmul_row_major async_copies_runtime async_copies_standin setter_loop
    handle_reuse)
foreach(p ${SHIM_IT_TOOLKIT_PROGRAMS})
  cublasspy_test_program(shim_${p} ${SHIM_IT_DIR}/programs/${p}.cpp)
  shim_it_unsanitized(shim_${p})
endforeach()
# The _ptsz prototypes it calls: the shim's own declarations (src/spec/per_thread_runtime.h).
target_include_directories(shim_async_copies_runtime PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_include_directories(shim_async_copies_standin PRIVATE ${PROJECT_SOURCE_DIR}/src)

# A library whose constructor calls cublasCreate_v2, and the program that links it.
add_library(shim_create_in_constructor SHARED ${SHIM_IT_DIR}/programs/create_in_constructor.cpp)
target_link_libraries(shim_create_in_constructor PRIVATE cuda_headers)
target_link_directories(shim_create_in_constructor PRIVATE ${CUBLASSPY_CUDA_LIBDIR})
target_link_libraries(shim_create_in_constructor PRIVATE cublas)
set_target_properties(shim_create_in_constructor PROPERTIES BUILD_RPATH ${CUBLASSPY_CUDA_LIBDIR})
shim_it_place(shim_create_in_constructor)
cublasspy_test_program(shim_constructor_user ${SHIM_IT_DIR}/programs/constructor_user.cpp)
target_link_libraries(shim_constructor_user PRIVATE shim_create_in_constructor)
shim_it_unsanitized(shim_constructor_user)

# A program that holds cuBLAS 12 and 13 at once: a library of its own per major, each linked
# against that major's stand-in (found through its RUNPATH: LD_LIBRARY_PATH names the 13 stack).
foreach(major 12 13)
  if(major EQUAL 12)
    set(stack standin12)
  else()
    set(stack standin)
  endif()
  add_library(shim_own_cublas${major} SHARED ${SHIM_IT_DIR}/programs/gemm_on_own_cublas.cpp)
  target_compile_definitions(shim_own_cublas${major} PRIVATE OWN_CUBLAS_ENTRY=own_cublas${major})
  target_link_libraries(shim_own_cublas${major} PRIVATE cuda_headers ${stack}_cublas ${stack}_cudart)
  target_include_directories(shim_own_cublas${major} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)  # device_copy.h
  set_target_properties(shim_own_cublas${major} PROPERTIES CXX_VISIBILITY_PRESET hidden)
  shim_it_place(shim_own_cublas${major})
endforeach()
add_executable(shim_two_cublas_majors ${SHIM_IT_DIR}/programs/two_cublas_majors.cpp)
target_link_libraries(shim_two_cublas_majors PRIVATE dl)
add_dependencies(shim_two_cublas_majors shim_own_cublas12 shim_own_cublas13)  # loaded beside it
shim_it_place(shim_two_cublas_majors)
add_executable(shim_reload_cublas ${SHIM_IT_DIR}/programs/reload_cublas.cpp)
target_link_libraries(shim_reload_cublas PRIVATE dl)
add_dependencies(shim_reload_cublas shim_own_cublas12 shim_own_cublas13)  # loaded beside it
shim_it_place(shim_reload_cublas)
add_executable(shim_second_major_late ${SHIM_IT_DIR}/programs/second_major_late.cpp)
target_link_libraries(shim_second_major_late PRIVATE dl)
add_dependencies(shim_second_major_late shim_own_cublas12 shim_own_cublas13)  # loaded beside it
shim_it_place(shim_second_major_late)

# --- Subjects that go around the preload ----------------------------------------------------
# No CUDA library linked: everything through dlopen(RTLD_LOCAL) + dlsym.
add_executable(shim_dlopen_local ${SHIM_IT_DIR}/programs/dlopen_local.cpp)
target_link_libraries(shim_dlopen_local PRIVATE cuda_headers dl)
shim_it_place(shim_dlopen_local)

# A bare-name dlopen whose only way to the stand-in is the program's own RUNPATH.
add_executable(shim_runpath_dlopen ${SHIM_IT_DIR}/programs/runpath_dlopen.cpp)
target_link_libraries(shim_runpath_dlopen PRIVATE dl)
target_link_options(shim_runpath_dlopen PRIVATE -Wl,--enable-new-dtags)
set_target_properties(shim_runpath_dlopen PROPERTIES BUILD_RPATH "\$ORIGIN/../standin")
shim_it_place(shim_runpath_dlopen)

# The static CUDA runtime (nvcc's default): device enumeration only through cuGetProcAddress.
set(SHIM_IT_CUDART_STATIC ${CUBLASSPY_CUDA_LIBDIR}/libcudart_static.a)
if(EXISTS ${SHIM_IT_CUDART_STATIC})
  add_executable(shim_static_runtime_device_count ${SHIM_IT_DIR}/programs/static_runtime_device_count.cpp)
  target_link_libraries(shim_static_runtime_device_count PRIVATE cuda_headers ${SHIM_IT_CUDART_STATIC}
                        dl Threads::Threads rt)
  shim_it_place(shim_static_runtime_device_count)
endif()

# A CUDA-named library that only RTLD_LAZY could load, and a program whose RTLD_NOW dlopen of it
# must fail cleanly.
add_library(shim_cudnn_unresolved SHARED ${SHIM_IT_DIR}/programs/cudnn_unresolved.c)
set_target_properties(shim_cudnn_unresolved PROPERTIES OUTPUT_NAME cudnn_shim_test_unresolved)
shim_it_place(shim_cudnn_unresolved)
add_executable(shim_failing_dlopen ${SHIM_IT_DIR}/programs/failing_dlopen.c)
target_link_libraries(shim_failing_dlopen PRIVATE dl)
shim_it_place(shim_failing_dlopen)

# A second preloaded library that uses dlsym(RTLD_NEXT), and a program for it to wrap.
add_library(shim_puts_wrapper SHARED ${SHIM_IT_DIR}/programs/puts_wrapper.c)
target_link_libraries(shim_puts_wrapper PRIVATE dl)
shim_it_place(shim_puts_wrapper)
add_executable(shim_say_hello ${SHIM_IT_DIR}/programs/say_hello.c)
shim_it_place(shim_say_hello)

# Interposers of CUDA functions preloaded beside the shim: one counts and forwards through
# dlsym(RTLD_NEXT), one provides cuBLASXt and CUDA events itself; and their subject.
add_library(shim_counting_interposer SHARED ${SHIM_IT_DIR}/programs/counting_interposer.c)
target_link_libraries(shim_counting_interposer PRIVATE dl)
shim_it_place(shim_counting_interposer)
add_library(shim_providing_interposer SHARED ${SHIM_IT_DIR}/programs/providing_interposer.c)
shim_it_place(shim_providing_interposer)
cublasspy_test_program(shim_interposed_calls ${SHIM_IT_DIR}/programs/interposed_calls.cpp)
shim_it_unsanitized(shim_interposed_calls)

# --- The null CUDA stack and the per-hook round trip ----------------------------------------
# One library per soname, each defining its part of the hook list (null_cuda/null_functions.h)
# under the version node the real library uses.
set(SHIM_IT_HOOK_INCLUDES ${SHIM_IT_DIR} ${SHIM_IT_DIR}/null_cuda ${PROJECT_SOURCE_DIR}/interpose
    ${PROJECT_SOURCE_DIR}/src)
# shim_it_null_soname(target soname map dir): the library `target` as file and soname `soname`
# in `dir`, its symbols under the version script null_cuda/`map`.
function(shim_it_null_soname target soname map dir)
  set_target_properties(${target} PROPERTIES
    PREFIX "" OUTPUT_NAME ${soname} SUFFIX "" NO_SONAME ON
    LIBRARY_OUTPUT_DIRECTORY ${dir}
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${SHIM_IT_DIR}/null_cuda/${map})
  target_link_libraries(${target} PRIVATE cuda_headers)
  target_link_options(${target} PRIVATE -Wl,-soname,${soname}
                      -Wl,--version-script=${SHIM_IT_DIR}/null_cuda/${map} -Wl,--no-undefined)
  shim_it_unsanitized(${target})
endfunction()
function(shim_it_null_library target soname map define)
  add_library(${target} SHARED ${SHIM_IT_DIR}/null_cuda/null_functions.cpp ${ARGN})
  shim_it_null_soname(${target} ${soname} ${map} ${SHIM_IT_NULL_CUDA_DIR})
  target_compile_definitions(${target} PRIVATE ${define})
  target_include_directories(${target} PRIVATE ${SHIM_IT_HOOK_INCLUDES})
endfunction()
shim_it_null_library(shim_null_cuda libcuda.so.1 libcuda.map NULL_CUDA_DRIVER)
# Its cuGetProcAddress hands out its own functions, as the real driver does, not the exports the
# preloaded shim interposes on: the shim must tell which of its hooks each one is the real
# function of (and a name with two ABIs, which one).
target_link_options(shim_null_cuda PRIVATE -Wl,-Bsymbolic-functions)
shim_it_null_library(shim_null_cudart libcudart.so.13 libcudart.map NULL_CUDA_CUDART)
shim_it_null_library(shim_null_cublaslt libcublasLt.so.13 libcublasLt.map NULL_CUDA_CUBLASLT)
shim_it_null_library(shim_null_cublas libcublas.so.13 libcublas.map NULL_CUDA_CUBLAS
                     ${SHIM_IT_DIR}/null_cuda/null_legacy.cpp)

# A cuBLAS program with no driver in its process: the null cuBLAS needs no libcuda.
add_executable(shim_gemm_without_driver ${SHIM_IT_DIR}/programs/gemm_without_driver.cpp)
target_link_libraries(shim_gemm_without_driver PRIVATE cuda_headers shim_null_cublas dl)
set_target_properties(shim_gemm_without_driver PROPERTIES BUILD_RPATH ${SHIM_IT_NULL_CUDA_DIR})
shim_it_place(shim_gemm_without_driver)

add_executable(shim_hook_roundtrip ${SHIM_IT_DIR}/hook_roundtrip.cpp ${SHIM_IT_DIR}/hook_roundtrip_legacy.cpp)
target_include_directories(shim_hook_roundtrip PRIVATE ${SHIM_IT_HOOK_INCLUDES})
target_link_libraries(shim_hook_roundtrip PRIVATE cuda_headers shim_null_cuda shim_null_cudart
                      shim_null_cublaslt shim_null_cublas)
set_target_properties(shim_hook_roundtrip PROPERTIES BUILD_RPATH ${SHIM_IT_NULL_CUDA_DIR})
shim_it_place(shim_hook_roundtrip)

# The driver's 2D, 3D, peer and batched copies and 2D memsets, on the null libcuda (no driver here).
add_executable(shim_async_copies_driver ${SHIM_IT_DIR}/programs/async_copies_driver.cpp)
target_link_libraries(shim_async_copies_driver PRIVATE cuda_headers shim_null_cuda)
set_target_properties(shim_async_copies_driver PROPERTIES BUILD_RPATH ${SHIM_IT_NULL_CUDA_DIR})
shim_it_place(shim_async_copies_driver)

# The runtime's batches with CUDA 12.8's prototypes, on a libcudart.so.12 of those alone, in a
# folder of its own (a libcudart.so.12 in null_cuda/ would be found by programs that ask for one).
add_library(shim_null_cudart_12_8 SHARED ${SHIM_IT_DIR}/null_cuda/cudart_12_8_batches.cpp)
shim_it_null_soname(shim_null_cudart_12_8 libcudart.so.12 libcudart12.map ${CMAKE_BINARY_DIR}/null_cudart_12_8)
add_executable(shim_async_batches_12_8 ${SHIM_IT_DIR}/programs/async_batches_12_8.cpp)
target_link_libraries(shim_async_batches_12_8 PRIVATE cuda_headers shim_null_cudart_12_8)
set_target_properties(shim_async_batches_12_8 PROPERTIES BUILD_RPATH ${CMAKE_BINARY_DIR}/null_cudart_12_8)
shim_it_place(shim_async_batches_12_8)

# --- The tests ------------------------------------------------------------------------------
# Paths, the Python interpreter and the process helpers: tests/support/support.cmake.
add_executable(shim_integration_test
  ${SHIM_IT_DIR}/driverless_test.cpp
  ${SHIM_IT_DIR}/driver_access_test.cpp
  ${SHIM_IT_DIR}/concurrency_test.cpp
  ${SHIM_IT_DIR}/flight_recorder_test.cpp
  ${SHIM_IT_DIR}/fatal_end_test.cpp
  ${SHIM_IT_DIR}/fork_test.cpp
  ${SHIM_IT_DIR}/environment_test.cpp
  ${SHIM_IT_DIR}/trace_file_test.cpp
  ${SHIM_IT_DIR}/scalars_test.cpp
  ${SHIM_IT_DIR}/nested_call_test.cpp
  ${SHIM_IT_DIR}/lt_descriptor_test.cpp
  ${SHIM_IT_DIR}/preload_routes_test.cpp
  ${SHIM_IT_DIR}/interposers_test.cpp
  ${SHIM_IT_DIR}/loader_test.cpp
  ${SHIM_IT_DIR}/symbol_hygiene_test.cpp
  ${SHIM_IT_DIR}/async_copies_test.cpp
  ${SHIM_IT_DIR}/unchanged_setters_test.cpp)
target_link_libraries(shim_integration_test PRIVATE cublasspy_test_support GTest::gtest_main dl)
target_compile_options(shim_integration_test PRIVATE -Wall -Wextra)
add_dependencies(shim_integration_test cublasspy shim_dlopen_local shim_runpath_dlopen
                 shim_puts_wrapper shim_say_hello shim_constructor_user shim_cudnn_unresolved
                 shim_failing_dlopen shim_gemm_without_driver shim_async_copies_driver
                 shim_async_batches_12_8 shim_counting_interposer shim_providing_interposer
                 shim_interposed_calls shim_two_cublas_majors)
foreach(p ${SHIM_IT_TOOLKIT_PROGRAMS})
  add_dependencies(shim_integration_test shim_${p})
endforeach()
if(TARGET shim_static_runtime_device_count)
  add_dependencies(shim_integration_test shim_static_runtime_device_count)
endif()
if(TARGET standin)
  add_dependencies(shim_integration_test standin)
endif()
gtest_discover_tests(shim_integration_test TEST_PREFIX shim. DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 120)

# The per-hook round trip, and the trace's function table (libraries, roles) against the list.
add_executable(shim_hook_roundtrip_test ${SHIM_IT_DIR}/hook_roundtrip_test.cpp ${SHIM_IT_DIR}/function_table_test.cpp)
target_link_libraries(shim_hook_roundtrip_test PRIVATE cublasspy_test_support cublasspy_spec GTest::gtest_main)
target_compile_options(shim_hook_roundtrip_test PRIVATE -Wall -Wextra)
add_dependencies(shim_hook_roundtrip_test cublasspy shim_hook_roundtrip)
gtest_discover_tests(shim_hook_roundtrip_test TEST_PREFIX shim. DISCOVERY_TIMEOUT 60
                     PROPERTIES TIMEOUT 60)

# Every GEMM entry point of the real libraries and every entry of the hook list is hooked
# (check_hook_coverage.py, which reads the list through hook_manifest), and the hook list's GEMM
# entries are what scripts/gen_gemm_hooks.py writes from the CUDA headers (no hand edits).
add_executable(hook_manifest ${SHIM_IT_DIR}/hook_manifest.cpp)
target_link_libraries(hook_manifest PRIVATE cublasspy_spec)
add_test(NAME shim.gemm_hooks_generated
         COMMAND ${CUBLASSPY_TEST_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/gen_gemm_hooks.py
                 --check ${PROJECT_SOURCE_DIR}/src/spec/gemm_hooks.h ${CUBLASSPY_CUBLASLT_H})
add_test(NAME shim.hook_coverage
         COMMAND ${CUBLASSPY_TEST_PYTHON} ${SHIM_IT_DIR}/check_hook_coverage.py
                 $<TARGET_FILE:cublasspy> ${CUBLASSPY_CUDA_LIBDIR} $<TARGET_FILE:hook_manifest>)

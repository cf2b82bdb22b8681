# CUBLASSPY_SCAN's code: the host-side scan (both core libraries) and the GPU kernel, built by
# nvcc into a fatbin and embedded in the shim as a byte array. Included from src/CMakeLists.txt
# after the core libraries are defined. The CUDA language is NOT enabled: nvcc runs as a custom
# command, so a machine without nvcc still builds everything (with the host path only).
set(CBS_SCAN_DIR ${CMAKE_CURRENT_LIST_DIR})
target_sources(cublasspy_shim_core PRIVATE ${CBS_SCAN_DIR}/host_scan.cpp)
target_sources(cublasspy_core PRIVATE ${CBS_SCAN_DIR}/host_scan.cpp)

option(CUBLASSPY_SCAN_KERNEL "Build the GPU scan kernel with nvcc (else scans run on the host)" ON)

# nvcc must run: its list of GPU codes also says which targets this toolkit still builds.
set(cbs_nvcc_usable FALSE)
if(CUBLASSPY_SCAN_KERNEL AND CUBLASSPY_NVCC)
  execute_process(COMMAND ${CUBLASSPY_NVCC} --list-gpu-code
                  OUTPUT_VARIABLE cbs_nvcc_codes ERROR_QUIET RESULT_VARIABLE cbs_list_result)
  if(cbs_list_result EQUAL 0 AND cbs_nvcc_codes MATCHES "sm_90")
    set(cbs_nvcc_usable TRUE)
  endif()
endif()

if(cbs_nvcc_usable)
  # sm_70 (Volta) left nvcc in CUDA 13: build it only where this nvcc still offers it. The
  # compute_90 PTX lets the driver compile the kernel for GPUs newer than the newest cubin.
  set(cbs_scan_archs "")
  foreach(arch 70 75 80 86 89 90)
    if(cbs_nvcc_codes MATCHES "sm_${arch}")
      list(APPEND cbs_scan_archs ${arch})
    endif()
  endforeach()
  set(cbs_gencode "")
  foreach(arch ${cbs_scan_archs})
    list(APPEND cbs_gencode -gencode arch=compute_${arch},code=sm_${arch})
  endforeach()
  list(APPEND cbs_gencode -gencode arch=compute_90,code=compute_90)
  list(JOIN cbs_scan_archs "," cbs_scan_arch_text)
  message(STATUS "cublasspy: GPU scan kernel for sm_{${cbs_scan_arch_text}} + compute_90 PTX (${CUBLASSPY_NVCC})")

  set(cbs_fatbin ${CMAKE_CURRENT_BINARY_DIR}/scan/scan_kernel.fatbin)
  set(cbs_fatbin_cpp ${CMAKE_CURRENT_BINARY_DIR}/scan/scan_fatbin.cpp)
  add_custom_command(
    OUTPUT ${cbs_fatbin}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/scan
    COMMAND ${CUBLASSPY_NVCC} -std=c++17 -Xptxas -O3 ${cbs_gencode} -fatbin
            -o ${cbs_fatbin} ${CBS_SCAN_DIR}/scan_kernel.cu
    DEPENDS ${CBS_SCAN_DIR}/scan_kernel.cu ${CBS_SCAN_DIR}/scan_kernel_body.h
            ${CBS_SCAN_DIR}/element_rules.h
    COMMENT "nvcc: scan kernel fatbin (sm_${cbs_scan_arch_text}, compute_90)"
    VERBATIM)
  add_custom_command(
    OUTPUT ${cbs_fatbin_cpp}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${cbs_fatbin} -DOUTPUT=${cbs_fatbin_cpp}
            -P ${CBS_SCAN_DIR}/embed_fatbin.cmake
    DEPENDS ${cbs_fatbin} ${CBS_SCAN_DIR}/embed_fatbin.cmake
    COMMENT "Embedding the scan kernel fatbin"
    VERBATIM)
  # Only the shim carries the kernel; the tools and tests use the host path.
  target_sources(cublasspy_shim_core PRIVATE ${cbs_fatbin_cpp})
  target_compile_definitions(cublasspy_shim_core PUBLIC CUBLASSPY_SCAN_KERNEL=1)
else()
  if(CUBLASSPY_SCAN_KERNEL)
    message(WARNING "cublasspy: no usable nvcc (CUBLASSPY_NVCC='${CUBLASSPY_NVCC}'; looked in PATH "
                    "and /usr/local/cuda/bin; CUDA 11.8 or later is needed for sm_90): the shim is "
                    "built WITHOUT the GPU scan kernel, so CUBLASSPY_SCAN will copy operands to the "
                    "host and scan them there (slower). Set CUBLASSPY_NVCC to nvcc's path to build "
                    "it, or -DCUBLASSPY_SCAN_KERNEL=OFF to silence this.")
  endif()
  target_compile_definitions(cublasspy_shim_core PUBLIC CUBLASSPY_SCAN_KERNEL=0)
endif()

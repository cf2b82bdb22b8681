# Every dependency is found here, or configure stops with the Debian package to install.
function(cublasspy_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "cublasspy needs ${what}: install it with `apt-get install ${package}` "
                        "(or run scripts/setup.sh, which installs everything).")
  endif()
endfunction()

find_package(CUDAToolkit QUIET)
if(NOT CUDAToolkit_FOUND)
  # The toolkit's headers are all we need at build time; look in the usual place as well.
  find_path(CUBLASSPY_CUDA_INCLUDE cublas_v2.h PATHS /usr/local/cuda/include)
  cublasspy_require(CUBLASSPY_CUDA_INCLUDE "the CUDA toolkit headers (cublas_v2.h)" "nvidia-cuda-toolkit or NVIDIA's CUDA toolkit in /usr/local/cuda")
  set(CUDAToolkit_INCLUDE_DIRS ${CUBLASSPY_CUDA_INCLUDE})
  get_filename_component(CUDAToolkit_LIBRARY_DIR ${CUBLASSPY_CUDA_INCLUDE}/../lib64 ABSOLUTE)
endif()
find_path(CUBLASSPY_CUBLASLT_H cublasLt.h PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
cublasspy_require(CUBLASSPY_CUBLASLT_H "the cuBLAS headers (cublasLt.h)" "the CUDA toolkit's libcublas-dev")
add_library(cuda_headers INTERFACE)
target_include_directories(cuda_headers SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})

find_package(nlohmann_json 3 QUIET)
cublasspy_require(nlohmann_json_FOUND "nlohmann/json" "nlohmann-json3-dev")
# fmt: its headers; its implementation is compiled in by src/fmt, never linked from libfmt.so.
find_package(fmt QUIET)
cublasspy_require(fmt_FOUND "fmt" "libfmt-dev")
find_package(spdlog QUIET)
cublasspy_require(spdlog_FOUND "spdlog" "libspdlog-dev")
find_package(CLI11 QUIET)
if(NOT CLI11_FOUND)
  find_path(CUBLASSPY_CLI11_H CLI/CLI.hpp)
  cublasspy_require(CUBLASSPY_CLI11_H "CLI11" "libcli11-dev")
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
endif()
# zlib writes `cublasspy bundle`'s .tar.gz. Its static library, so the tool still needs nothing
# but glibc (cmake/SelfContained.cmake); libarchive's static library would bring lzma, bzip2,
# nettle, libxml2 and more.
set(ZLIB_USE_STATIC_LIBS ON)
find_package(ZLIB QUIET)
cublasspy_require(ZLIB_FOUND "zlib (its static library, libz.a)" "zlib1g-dev")
if(CUBLASSPY_BUILD_TESTS)
  find_package(GTest QUIET)
  cublasspy_require(GTest_FOUND "GoogleTest" "libgtest-dev")
  find_package(benchmark QUIET)
  cublasspy_require(benchmark_FOUND "Google Benchmark" "libbenchmark-dev")
endif()
find_package(Threads REQUIRED)  # the CPU stand-in and the tests

find_program(CUBLASSPY_NVCC nvcc PATHS ${CUDAToolkit_BIN_DIR} /usr/local/cuda/bin)

# Sanitizer builds apply to everything but the shim's static-runtime link (see interpose/).
if(CUBLASSPY_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
elseif(CUBLASSPY_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

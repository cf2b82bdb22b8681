# The one version source: project(cublasspy VERSION x.y.z) in CMakeLists.txt. Code includes
# "cublasspy_version.h" (target cublasspy_version); the .deb (cmake/Packaging.cmake) and the
# wheel (packaging/wheel) read PROJECT_VERSION.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.h.in ${CMAKE_BINARY_DIR}/generated/cublasspy_version.h @ONLY)
add_library(cublasspy_version INTERFACE)
target_include_directories(cublasspy_version INTERFACE ${CMAKE_BINARY_DIR}/generated)

# The packages (docs/PACKAGING.md). Both carry what `cmake --install` installs: the shim
# (lib/libcublasspy.so), the CLI and the replay runner (bin/), stripped, at the version of
# project() (cmake/Version.cmake).
#
# `cmake --build build --target package`: a .deb (CPack) under /usr, in build/packages/. The
# programs need nothing but glibc (cmake/SelfContained.cmake), so glibc at the floor is its one
# dependency; hardening.repository.SelfContained checks the floor.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cublasspy)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "flight recorder and diagnosis for cuBLAS/CUDA failures (LD_PRELOAD shim and CLI)")
set(CPACK_PACKAGE_CONTACT "cublasspy maintainers <cublasspy@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= ${CUBLASSPY_GLIBC_FLOOR})")
include(CPack)

# `cmake --build build --target wheel`: a Python wheel in build/packages/, built by Debian's
# standard tools (python3-build, setuptools, wheel; no network: --no-isolation) from
# packaging/wheel with the installed programs inside the package (cublasspy/bin, cublasspy/lib:
# the CLI finds the shim at ../lib as in any install tree). Tagged for the glibc floor.
find_program(CUBLASSPY_PACKAGING_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH
             DOC "the Python with the build module (Debian's python3-build) that builds the wheel")
if(NOT CUBLASSPY_PACKAGING_PYTHON)
  find_program(CUBLASSPY_PACKAGING_PYTHON NAMES python3)
endif()
string(REPLACE "." "_" cublasspy_glibc_tag ${CUBLASSPY_GLIBC_FLOOR})
set(CUBLASSPY_WHEEL_PLATFORM manylinux_${cublasspy_glibc_tag}_x86_64)
set(cublasspy_wheel_stage ${CMAKE_BINARY_DIR}/wheel-stage)
configure_file(${PROJECT_SOURCE_DIR}/packaging/wheel/_version.py.in ${CMAKE_BINARY_DIR}/generated/_version.py @ONLY)
add_custom_target(wheel
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${cublasspy_wheel_stage}
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${PROJECT_SOURCE_DIR}/packaging/wheel ${cublasspy_wheel_stage}
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_BINARY_DIR}/generated/_version.py ${cublasspy_wheel_stage}/cublasspy/_version.py
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${cublasspy_wheel_stage}/cublasspy --strip
  COMMAND ${CUBLASSPY_PACKAGING_PYTHON} -m build --wheel --no-isolation
          --outdir ${CMAKE_BINARY_DIR}/packages ${cublasspy_wheel_stage}
  WORKING_DIRECTORY ${CMAKE_BINARY_DIR}
  COMMENT "Building the wheel cublasspy-${PROJECT_VERSION}-py3-none-${CUBLASSPY_WHEEL_PLATFORM}.whl"
  VERBATIM)
add_dependencies(wheel cublasspy cublasspy_cli cublasspy_replay_runner)

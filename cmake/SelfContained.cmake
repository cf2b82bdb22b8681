# The installed programs start on any glibc 2.34+ system (Debian 12 and 13, Ubuntu 22.04 and
# 24.04, RHEL 9), with nothing of the build machine's but glibc: libstdc++ and libgcc are linked
# in (fmt is compiled in from its headers, src/fmt; spdlog is header-only). Sanitizer builds keep the
# shared runtimes the sanitizers need. hardening.repository.SelfContained checks the result.
set(CUBLASSPY_GLIBC_FLOOR 2.34)
add_library(cublasspy_glibc_floor OBJECT ${CMAKE_CURRENT_LIST_DIR}/glibc_floor.c)
# Also linked into the shim, which is never sanitized.
target_compile_options(cublasspy_glibc_floor PRIVATE -fno-sanitize=all)
function(cublasspy_self_contained target)
  if(NOT CUBLASSPY_SANITIZE)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:cublasspy_glibc_floor>)
  endif()
endfunction()

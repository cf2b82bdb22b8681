# The packages (cmake/Packaging.cmake) built and installed where users meet them: the .deb into a
# throwaway overlay of the Debian trixie PyTorch root, the wheel into a venv there. Label
# `packaging` (and `pytorch`: they need the root, and fail loudly without it). The two fixtures
# build the packages from this build (cpack; the wheel target), so ctest tests what was built.
add_test(NAME packaging.build_deb COMMAND ${CMAKE_CPACK_COMMAND} --config ${CMAKE_BINARY_DIR}/CPackConfig.cmake
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
add_test(NAME packaging.build_wheel COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target wheel)
set_tests_properties(packaging.build_deb PROPERTIES FIXTURES_SETUP cublasspy_deb LABELS "packaging;pytorch" TIMEOUT 300)
set_tests_properties(packaging.build_wheel PROPERTIES FIXTURES_SETUP cublasspy_wheel LABELS "packaging;pytorch" TIMEOUT 300)
if(NOT CUBLASSPY_SANITIZE)
  add_test(NAME packaging.deb_in_clean_root
    COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_deb.py ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CUBLASSPY_GLIBC_FLOOR})
  add_test(NAME packaging.wheel_in_pytorch_venv
    COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_wheel.py ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CUBLASSPY_GLIBC_FLOOR})
  set_tests_properties(packaging.deb_in_clean_root PROPERTIES FIXTURES_REQUIRED cublasspy_deb
                       LABELS "packaging;pytorch" TIMEOUT 300)
  set_tests_properties(packaging.wheel_in_pytorch_venv PROPERTIES FIXTURES_REQUIRED cublasspy_wheel
                       LABELS "packaging;pytorch" TIMEOUT 400)
endif()

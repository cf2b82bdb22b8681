# The scripts of scripts/ that have checks of their own, run without the build they make.
add_test(NAME scripts.demo
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/scripts/demo_test.sh ${PROJECT_SOURCE_DIR}
             ${CMAKE_CURRENT_BINARY_DIR}/demo-test)
set_tests_properties(scripts.demo PROPERTIES TIMEOUT 120)

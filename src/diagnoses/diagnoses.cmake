# The diagnosis rules (src/diagnoses/) and the machine checks of `cublasspy doctor` (src/doctor/),
# one static library shared by the tools and the tests. Included from src/CMakeLists.txt after
# the reader:  include(diagnoses/diagnoses.cmake)
get_filename_component(cbs_diag_src_dir ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
file(GLOB CUBLASSPY_DIAGNOSES_SOURCES CONFIGURE_DEPENDS
     ${cbs_diag_src_dir}/diagnoses/*.cpp ${cbs_diag_src_dir}/doctor/*.cpp)
add_library(cublasspy_diagnoses STATIC ${CUBLASSPY_DIAGNOSES_SOURCES})
target_include_directories(cublasspy_diagnoses PUBLIC ${cbs_diag_src_dir})
target_link_libraries(cublasspy_diagnoses PUBLIC cublasspy_reader nlohmann_json::nlohmann_json PRIVATE fmt::fmt ${CMAKE_DL_LIBS})
target_compile_options(cublasspy_diagnoses PRIVATE -Wall -Wextra)
# The check messages the rules render (check_ids.cpp, operand_checks.cpp) come from
# cublasspy_core, through cublasspy_reader.

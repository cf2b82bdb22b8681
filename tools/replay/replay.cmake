# `cublasspy replay` (docs/REPLAY.md). Included at the end of tools/CMakeLists.txt.
#
# - cublasspy_replay_common: what the tool and the runner share (the plan, the element codec,
#   the host reference, the tolerances, the hook list's signatures as text). No CUDA.
# - the tool side (plan building, the runner's client, the verdicts, the emitters) goes into
#   cublasspy_tools, next to cmd_replay.cpp.
# - cublasspy-replay-runner (bin/, next to cublasspy): the fresh process that re-executes the
#   call. It dlopens libcudart/libcublas/libcublasLt by soname and is compiled against the CUDA
#   headers only, so neither it nor the tool needs a working CUDA to start.
set(CBS_REPLAY_DIR ${CMAKE_CURRENT_LIST_DIR})
set(CBS_REPLAY_RUNNER_DIR ${PROJECT_SOURCE_DIR}/tools/replay_runner)

add_library(cublasspy_replay_common STATIC
  ${CBS_REPLAY_DIR}/element_codec.cpp
  ${CBS_REPLAY_DIR}/hook_signatures.cpp
  ${CBS_REPLAY_DIR}/host_reference.cpp
  ${CBS_REPLAY_DIR}/replay_plan.cpp
  ${CBS_REPLAY_DIR}/tolerance.cpp)
# hook_list.h and foreach.h are plain macros: the signatures are expanded from them.
target_include_directories(cublasspy_replay_common PUBLIC ${CBS_REPLAY_DIR} ${PROJECT_SOURCE_DIR}/interpose)
target_link_libraries(cublasspy_replay_common PUBLIC cublasspy_core nlohmann_json::nlohmann_json)
target_compile_options(cublasspy_replay_common PRIVATE -Wall -Wextra)

target_sources(cublasspy_tools PRIVATE
  ${CBS_REPLAY_DIR}/dump_files.cpp
  ${CBS_REPLAY_DIR}/emit_cpp.cpp
  ${CBS_REPLAY_DIR}/emit_python.cpp
  ${CBS_REPLAY_DIR}/plan_builder.cpp
  ${CBS_REPLAY_DIR}/replay_output.cpp
  ${CBS_REPLAY_DIR}/runner_client.cpp
  ${CBS_REPLAY_DIR}/verdict.cpp)
target_link_libraries(cublasspy_tools PUBLIC cublasspy_replay_common)
add_executable(cublasspy_replay_runner
  ${CBS_REPLAY_RUNNER_DIR}/call_adapters.cpp
  ${CBS_REPLAY_RUNNER_DIR}/call_adapters_legacy.cpp
  ${CBS_REPLAY_RUNNER_DIR}/cuda_libraries.cpp
  ${CBS_REPLAY_RUNNER_DIR}/device_operands.cpp
  ${CBS_REPLAY_RUNNER_DIR}/event_log.cpp
  ${CBS_REPLAY_RUNNER_DIR}/lt_matmul_descriptors.cpp
  ${CBS_REPLAY_RUNNER_DIR}/main.cpp
  ${CBS_REPLAY_RUNNER_DIR}/replay_session.cpp)
set_target_properties(cublasspy_replay_runner PROPERTIES OUTPUT_NAME cublasspy-replay-runner
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
target_include_directories(cublasspy_replay_runner PRIVATE ${CBS_REPLAY_RUNNER_DIR})
target_link_libraries(cublasspy_replay_runner PRIVATE cublasspy_replay_common cuda_headers dl)
target_compile_options(cublasspy_replay_runner PRIVATE -Wall -Wextra)
install(TARGETS cublasspy_replay_runner RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# `replay` starts the runner found next to the tool: building the tool builds it.
add_dependencies(cublasspy_cli cublasspy_replay_runner)

# Real PyTorch (Debian's CUDA 12.4 build, in the root scripts/pytorch-root.sh makes) on the CUDA
# 12 stand-in (standin/, <build>/standin-cuda12). Label `pytorch`. Without the root these
# tests fail, naming scripts/pytorch-root.sh; they never skip.
set(CUBLASSPY_PYTORCH_DIR ${CMAKE_CURRENT_SOURCE_DIR}/pytorch)
set(CUBLASSPY_STANDIN12_DIR ${CMAKE_BINARY_DIR}/standin-cuda12)

# What torch's libraries import from the three versioned CUDA 12 libraries (and the driver), all
# exported by the stand-in under the right version node; nothing exported that 12.4 lacks.
add_test(NAME pytorch.standin12_imports
  COMMAND sh ${CUBLASSPY_PYTORCH_DIR}/pytorch_imports.sh ${CUBLASSPY_STANDIN12_DIR}
             ${CMAKE_SOURCE_DIR}/tests/standin/check_exports.sh)

set_tests_properties(pytorch.standin12_imports PROPERTIES LABELS pytorch TIMEOUT 180)

# torch.cuda.is_available(), copies, mm/addmm/Linear/bmm/baddbmm in fp32, fp16, bf16, fp64,
# events, and kernel launches that fail honestly (tests/pytorch/standin_ops.py). Not in sanitizer
# builds: an instrumented stand-in needs the host's sanitizer runtime, which the root lacks.
if(NOT CUBLASSPY_SANITIZE)
  add_test(NAME pytorch.standin12_ops
    COMMAND sh ${CUBLASSPY_PYTORCH_DIR}/run_in_root.sh ${CMAKE_SOURCE_DIR} ${CUBLASSPY_STANDIN12_DIR} standin_ops.py)
  set_tests_properties(pytorch.standin12_ops PROPERTIES LABELS pytorch TIMEOUT 180)
endif()

# Scenarios: real PyTorch scripts under the real shim (tests/pytorch/test_*.py, on the host; they
# start PyTorch in the root through scripts/in-pytorch-root.sh and read the traces with the CLI).
function(cublasspy_pytorch_scenario name)
  add_test(NAME pytorch.${name}
    COMMAND python3 ${CUBLASSPY_PYTORCH_DIR}/test_${name}.py ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(pytorch.${name} PROPERTIES LABELS pytorch TIMEOUT 300)
endfunction()
if(NOT CUBLASSPY_SANITIZE)
  cublasspy_pytorch_scenario(routes)
  cublasspy_pytorch_scenario(field_reports)
  cublasspy_pytorch_scenario(async_and_data)
  cublasspy_pytorch_scenario(processes)
  cublasspy_pytorch_scenario(hosts_merge)
  cublasspy_pytorch_scenario(driverless)
  cublasspy_pytorch_scenario(locations)
  cublasspy_pytorch_scenario(gpu_check)
  cublasspy_pytorch_scenario(transparent)
  cublasspy_pytorch_scenario(keep_policy)
  cublasspy_pytorch_scenario(unchanged_setters)
  cublasspy_pytorch_scenario(failure_storms)
  cublasspy_pytorch_scenario(import_failures)
  cublasspy_pytorch_scenario(reported_error)
  cublasspy_pytorch_scenario(memory_at_failure)
  cublasspy_pytorch_scenario(probes)
  cublasspy_pytorch_scenario(kernel_causes)
  cublasspy_pytorch_scenario(kernel_image)
  cublasspy_pytorch_scenario(gpu_hardware)
  cublasspy_pytorch_scenario(delayed_faults)
endif()

// Device code: what nvcc's host code and kernel launches ask of the runtime.
//
// A program built from .cu files registers its fatbins and kernels at load time
// (__cudaRegisterFatBinary, __cudaRegisterFunction, ... from static constructors, thousands of
// times for PyTorch), so registration only records, cheaply, which fatbin each host stub belongs
// to, and touches neither the driver nor the environment beyond the fault plan. A launch is where
// the stand-in must fail honestly: it cannot run device code, so it does what the real runtime
// does on a GPU the fatbin has no code for. It asks the driver to load the kernel's fatbin
// (cuModuleLoadData, which answers CUDA_ERROR_NO_BINARY_FOR_GPU) and returns
// cudaErrorNoKernelImageForDevice (209, not sticky). The fault plan can script otherwise:
// STANDIN_FAIL=cudaLaunchKernel:N:0 makes a launch succeed doing nothing, and
// STANDIN_ASYNC_ERROR=cudaLaunchKernel:N:700 makes it succeed and fault (sticky illegal address),
// as a kernel that touches a bad pointer does.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "capture_work.h"
#include "runtime_state.h"

using namespace standin::runtime;

namespace {

// The fatbin wrapper nvcc emits for each translation unit (__fatBinC_Wrapper_t in fatbinary.h).
struct FatbinWrapper {
  int magic;
  int version;
  const unsigned long long* data;  // the fatbin image
  void* filename_or_fatbins;
};

// One registered fatbin. __cudaRegisterFatBinary returns &handle, a void** the program passes
// back to every later registration call, as the real runtime's handle is used.
struct Module {
  void* handle;  // points at this Module: what the void** handle dereferences to
  const FatbinWrapper* wrapper;
  std::vector<const void*> functions;  // host stubs registered for it
};

// A registered kernel. Its address is the cudaKernel_t that __cudaGetKernel hands out.
struct Kernel {
  Module* module;
  const char* device_name;
};

struct Registry {
  std::mutex mutex;
  std::unordered_map<const void*, Kernel*> by_host_function;
};

Registry& registry() {
  static Registry* const r = new Registry;  // process lifetime: unregistration runs at exit
  return *r;
}

// The kernel of a host stub, or of a cudaKernel_t given in its place (as the runtime's APIs that
// take an entry function accept).
Kernel* find_kernel(const void* host_function) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.by_host_function.find(host_function);
  if (it != r.by_host_function.end()) return it->second;
  for (const auto& [stub, kernel] : r.by_host_function) {
    if (kernel == host_function) return kernel;
  }
  return nullptr;
}

Kernel* as_kernel(cudaKernel_t k) { return reinterpret_cast<Kernel*>(k); }

// The launch configurations pushed by <<<...>>> and popped by the kernel's host stub.
struct CallConfiguration {
  dim3 grid, block;
  size_t shared_mem;
  cudaStream_t stream;
};

std::vector<CallConfiguration>& call_configurations() {
  thread_local std::vector<CallConfiguration> stack;
  return stack;
}

bool valid_dims(dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) return false;
  return static_cast<unsigned long long>(block.x) * block.y * block.z <= 1024 && block.z <= 64 && grid.y <= 65535 &&
         grid.z <= 65535;
}

// A kernel that a capture records: it "runs" at each launch of the graph, doing nothing, or
// faulting with `async_error` (STANDIN_ASYNC_ERROR of the captured launch).
cudaError_t capture_kernel(cudaStream_t stream, int async_error) {
  const int r = standin::capture_work(stream, "kernel", [async_error] { return async_error; });
  return record(static_cast<cudaError_t>(r));
}

// The common body of every launch entry point, after STANDIN_LAUNCH_ENTRY.
cudaError_t launch(const standin_fault_action& fault, const Kernel* kernel, dim3 grid, dim3 block, cudaStream_t stream) {
  STANDIN_RUNTIME_CONTEXT();
  if (kernel == nullptr) return record(cudaErrorInvalidDeviceFunction);
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (!valid_dims(grid, block)) return record(cudaErrorInvalidConfiguration);
  if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (fault.async_error) {  // the kernel "ran" and faulted: the launch itself succeeded
    if (how == STANDIN_RECORD) return capture_kernel(stream, fault.async_error);
    standin_raise_scripted_fault(fault);
    return cudaSuccess;
  }
  CUmodule module = nullptr;
  const CUresult r = drv->cuModuleLoadData(&module, kernel->module->wrapper->data);
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU) return record(cudaErrorNoKernelImageForDevice);
  return record(r == CUDA_SUCCESS ? cudaErrorNoKernelImageForDevice : from_driver(r));
}

// A launch scripted to succeed (STANDIN_FAIL=cudaLaunchKernel:N:0) "runs" a kernel that does
// nothing: like every launch it binds the thread's context first, and on a capturing stream that
// kernel is a node of the graph (a stream whose capture was invalidated refuses it).
cudaError_t scripted_launch(const standin_fault_action& fault, cudaStream_t stream) {
  const cudaError_t scripted = scripted_device_call(fault);
  if (scripted != cudaSuccess || !standin_stream_valid(stream) || runtime().error != cudaSuccess) return scripted;
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  return how == STANDIN_RECORD ? capture_kernel(stream, 0) : cudaSuccess;
}

// STANDIN_RUNTIME_DEVICE_ENTRY for the launches: a scripted success may be a kernel to capture.
#define STANDIN_LAUNCH_ENTRY(name, stream)                \
  const standin_fault_action fault = standin_enter(name); \
  if (fault.fail) return scripted_launch(fault, stream)

// What a query about a kernel's code (attributes, occupancy) gets: the code is never loadable.
cudaError_t kernel_query(const void* func) {
  STANDIN_RUNTIME_CONTEXT();
  const Kernel* kernel = find_kernel(func);
  if (kernel == nullptr) return record(cudaErrorInvalidDeviceFunction);
  CUmodule module = nullptr;
  const CUresult r = drv->cuModuleLoadData(&module, kernel->module->wrapper->data);
  return record(r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_SUCCESS ? cudaErrorNoKernelImageForDevice
                                                                       : from_driver(r));
}

}  // namespace

extern "C" {

// ---- registration: nvcc's static constructors and atexit handlers ------------------------------

STANDIN_EXPORT void** __cudaRegisterFatBinary(void* fatCubin) {
  standin_enter("__cudaRegisterFatBinary");
  auto* m = new Module{nullptr, static_cast<const FatbinWrapper*>(fatCubin), {}};
  m->handle = m;
  return &m->handle;
}

STANDIN_EXPORT void __cudaRegisterFatBinaryEnd(void** fatCubinHandle) {
  standin_enter("__cudaRegisterFatBinaryEnd");
  (void)fatCubinHandle;
}

STANDIN_EXPORT void __cudaUnregisterFatBinary(void** fatCubinHandle) {
  standin_enter("__cudaUnregisterFatBinary");
  if (fatCubinHandle == nullptr) return;
  auto* m = static_cast<Module*>(*fatCubinHandle);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const void* f : m->functions) {
    auto it = r.by_host_function.find(f);
    if (it != r.by_host_function.end() && it->second->module == m) {
      delete it->second;
      r.by_host_function.erase(it);
    }
  }
  delete m;
}

STANDIN_EXPORT void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                           const char* deviceName, int thread_limit, uint3* tid, uint3* bid,
                                           dim3* bDim, dim3* gDim, int* wSize) {
  standin_enter("__cudaRegisterFunction");
  (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
  if (fatCubinHandle == nullptr || hostFun == nullptr) return;
  auto* m = static_cast<Module*>(*fatCubinHandle);
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  Kernel*& k = r.by_host_function[hostFun];
  if (k == nullptr) k = new Kernel{};
  *k = Kernel{m, deviceName};
  m->functions.push_back(hostFun);
}

// Device variables: recorded nowhere; no call the stand-in has reads them (cudaMemcpyToSymbol).
STANDIN_EXPORT void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress,
                                      const char* deviceName, int ext, size_t size, int constant, int global) {
  standin_enter("__cudaRegisterVar");
  (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext, (void)size,
      (void)constant, (void)global;
}

STANDIN_EXPORT void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                                             const char* deviceName, int ext, size_t size, int constant,
                                             int global) {
  standin_enter("__cudaRegisterManagedVar");
  (void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName, (void)ext, (void)size,
      (void)constant, (void)global;
}

// Called before a managed variable is first used, to load its module: it cannot be loaded here.
STANDIN_EXPORT char __cudaInitModule(void** fatCubinHandle) {
  standin_enter("__cudaInitModule");
  (void)fatCubinHandle;
  return 0;
}

// ---- launches ------------------------------------------------------------------------------

// <<<grid, block, shared, stream>>> pushes a configuration that the kernel's stub pops. Not in
// the CUDA headers outside nvcc's compilation (device_functions.h, under __CUDACC__).
STANDIN_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                    struct CUstream_st* stream) {
  standin_enter("__cudaPushCallConfiguration");
  call_configurations().push_back(CallConfiguration{gridDim, blockDim, sharedMem, stream});
  return 0;
}

STANDIN_EXPORT cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  STANDIN_RUNTIME_ENTRY("__cudaPopCallConfiguration");
  auto& stack = call_configurations();
  if (stack.empty()) return record(cudaErrorMissingConfiguration);
  const CallConfiguration c = stack.back();
  stack.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared_mem;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

}  // extern "C"

namespace {

// The launches under each name they are exported by: the plain one and the
// per-thread-default-stream form (_ptsz), each counted under its own name.
cudaError_t launch_named(const char* name, const void* func, dim3 gridDim, dim3 blockDim, cudaStream_t stream) {
  STANDIN_LAUNCH_ENTRY(name, stream);
  return launch(fault, find_kernel(func), gridDim, blockDim, stream);
}

cudaError_t launch_ex_named(const char* name, const cudaLaunchConfig_t* config, const void* func) {
  STANDIN_LAUNCH_ENTRY(name, config != nullptr ? config->stream : nullptr);
  if (config == nullptr) return record(cudaErrorInvalidValue);
  return launch(fault, find_kernel(func), config->gridDim, config->blockDim, config->stream);
}

}  // namespace

extern "C" {

STANDIN_EXPORT cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** /*args*/,
                                            size_t /*sharedMem*/, cudaStream_t stream) {
  return launch_named("cudaLaunchKernel", func, gridDim, blockDim, stream);
}

STANDIN_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 gridDim, dim3 blockDim, void** /*args*/,
                                                 size_t /*sharedMem*/, cudaStream_t stream) {
  return launch_named("cudaLaunchKernel_ptsz", func, gridDim, blockDim, stream);
}

STANDIN_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** /*args*/) {
  return launch_ex_named("cudaLaunchKernelExC", config, func);
}

STANDIN_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                                    void** /*args*/) {
  return launch_ex_named("cudaLaunchKernelExC_ptsz", config, func);
}

// CUDA 12.4+ nvcc host stubs (without __NV_LEGACY_LAUNCH): the stub asks once for the kernel's
// handle, then launches through it. Declared only under __CUDACC__ (crt/device_functions.h).
STANDIN_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  STANDIN_RUNTIME_ENTRY("__cudaGetKernel");
  if (kernel == nullptr) return record(cudaErrorInvalidValue);
  Kernel* k = find_kernel(func);
  if (k == nullptr) return record(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

STANDIN_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                              size_t sharedMem, cudaStream_t stream) {
  STANDIN_LAUNCH_ENTRY("__cudaLaunchKernel", stream);
  (void)args, (void)sharedMem;
  return launch(fault, as_kernel(kernel), gridDim, blockDim, stream);
}

STANDIN_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,
                                                   size_t sharedMem, cudaStream_t stream) {
  STANDIN_LAUNCH_ENTRY("__cudaLaunchKernel_ptsz", stream);
  (void)args, (void)sharedMem;
  return launch(fault, as_kernel(kernel), gridDim, blockDim, stream);
}

// The kernel's device name as registered (its mangled name), as the real runtime answers.
STANDIN_EXPORT cudaError_t cudaFuncGetName(const char** name, const void* func) {
  STANDIN_RUNTIME_ENTRY("cudaFuncGetName");
  if (name == nullptr) return record(cudaErrorInvalidValue);
  const Kernel* kernel = find_kernel(func);
  if (kernel == nullptr || kernel->device_name == nullptr) return record(cudaErrorInvalidDeviceFunction);
  *name = kernel->device_name;
  return finish(cudaSuccess, fault);
}

// A host function enqueued on a stream runs once the work before it is done: at once here.
// Captured, it runs at each launch of the graph, with the same userData pointer.
STANDIN_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaLaunchHostFunc");
  if (fn == nullptr) return record(cudaErrorInvalidValue);
  STANDIN_RUNTIME_CONTEXT();
  if (!standin_stream_valid(stream)) return record(cudaErrorInvalidResourceHandle);
  if (const int sticky = standin_sticky_error()) return record(static_cast<cudaError_t>(sticky));
  const int how = enqueue(stream);
  if (how > 0) return record(static_cast<cudaError_t>(how));
  if (how == STANDIN_RECORD) {
    const int async_error = fault.async_error;
    return record(static_cast<cudaError_t>(standin::capture_work(stream, "host", [fn, userData, async_error] {
      fn(userData);
      return async_error;
    })));
  }
  fn(userData);
  return finish(cudaSuccess, fault);
}

// ---- questions about a kernel's code: it never loads on the stand-in ---------------------------

STANDIN_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaFuncGetAttributes");
  if (attr == nullptr) return record(cudaErrorInvalidValue);
  return kernel_query(func);
}

STANDIN_EXPORT cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaFuncSetAttribute");
  (void)attr, (void)value;
  return kernel_query(func);
}

STANDIN_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func,
                                                                                   int blockSize,
                                                                                   size_t dynamicSMemSize,
                                                                                   unsigned int flags) {
  STANDIN_RUNTIME_DEVICE_ENTRY("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
  (void)blockSize, (void)dynamicSMemSize, (void)flags;
  if (numBlocks == nullptr) return record(cudaErrorInvalidValue);
  return kernel_query(func);
}

}  // extern "C"

// The replayed call's operands: host buffers filled as the plan says (seeded random values,
// ones, or a dump's bytes) and their device copies, each allocated at its full strided extent,
// at the program's alignment modulo 256, members of pointer-array forms apart with a device
// array of their addresses. Operands the program passed the same address for share one buffer.
// cublasXt calls take host memory: their "device" buffers are host buffers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replay/runner/cuda_libraries.h"
#include "replay/host_reference.h"
#include "replay/replay_plan.h"

namespace cublasspy::replay {

class DeviceOperands {
 public:
  DeviceOperands(const ReplayPlan& plan, const CudaLibraries& cuda, bool host_memory)
      : plan_(plan), cuda_(cuda), host_memory_(host_memory) {}
  DeviceOperands(const DeviceOperands&) = delete;
  ~DeviceOperands();

  // Fills, allocates and uploads every operand. On failure `error` says which and why
  // (a cudaError_t in `cuda_error` when the runtime refused).
  bool setup(std::string& error, int& cuda_error);

  // What the call gets for operand `name`: its address, or its pointer array's.
  uint64_t call_address(const std::string& name) const;

  // Puts the operand's initial values back on the device (before a repeated, verified run of
  // an in-place call), and copies its current device contents to the host.
  int upload(const std::string& name);
  int download(const std::string& name);

  // The host view of the initial values, and of what download() fetched.
  HostOperand initial(const std::string& name) const;
  HostOperand current(const std::string& name) const;
  // The program's result of the output `name`, from its dumps (the plan's program_result), laid
  // out as current(); empty, with `problem` set, when it could not be read.
  HostOperand program_result(const std::string& name, std::string& problem) const;

  uint64_t device_bytes() const { return device_bytes_; }

 private:
  struct Buffer {
    const OperandPlan* plan = nullptr;  // the operand that owns the memory
    std::vector<unsigned char> initial;  // as filled; pointer arrays: members back to back
    std::vector<unsigned char> current;  // downloaded (cublasXt: the memory the call uses)
    uint64_t member_bytes = 0;           // pointer arrays: one member; else the whole buffer
    void* base = nullptr;                // plain operands: the allocation
    void* address = nullptr;             // base + misalignment
    std::vector<void*> members;          // pointer arrays: each member's allocation
    void* pointer_array = nullptr;       // device array of `members`
  };

  bool fill(Buffer& b, std::string& error);
  Buffer* owner(const std::string& name);
  const Buffer* owner(const std::string& name) const;
  int allocate(void** out, uint64_t bytes);

  const ReplayPlan& plan_;
  const CudaLibraries& cuda_;
  bool host_memory_;
  std::map<std::string, Buffer> buffers_;   // by owning operand's name
  std::map<std::string, std::string> owner_of_;  // operand -> owning operand
  std::map<std::string, std::vector<unsigned char>> results_;  // program results, by operand
  std::string result_problem_;
  std::vector<void*> allocations_;
  uint64_t device_bytes_ = 0;
};

}  // namespace cublasspy::replay

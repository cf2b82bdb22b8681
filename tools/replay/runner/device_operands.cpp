#include "replay/runner/device_operands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>

#include "replay/element_codec.h"

namespace cublasspy::replay {
namespace {

// Room for the program's misalignment (the runtime's allocations are 256-byte aligned).
constexpr uint64_t kAlignmentSlack = 256;

// Copies each piece's members from its file into `out`, member i of the operand at
// i * member_stride. Nothing in the plan is trusted: a piece outside `out` is an error.
bool read_pieces(const std::vector<DumpPiece>& pieces, std::vector<unsigned char>& out, uint64_t member_stride,
                 std::string& error) {
  for (const DumpPiece& d : pieces) {
    const uint64_t members = out.size() / std::max<uint64_t>(member_stride, 1);
    if (d.first_member < 0 || d.members < 0 || d.member_bytes > member_stride ||
        static_cast<uint64_t>(d.first_member) + static_cast<uint64_t>(d.members) > members) {
      error = d.path + ": its members do not fit the operand";
      return false;
    }
    int fd = ::open(d.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = d.path + ": " + std::strerror(errno);
      return false;
    }
    for (int64_t m = 0; m < d.members; ++m) {
      unsigned char* to = out.data() + static_cast<uint64_t>(d.first_member + m) * member_stride;
      const uint64_t from = d.offset + static_cast<uint64_t>(m) * d.member_bytes;
      uint64_t done = 0;
      while (done < d.member_bytes) {
        ssize_t n = ::pread(fd, to + done, d.member_bytes - done, static_cast<off_t>(from + done));
        if (n <= 0) {
          error = d.path + ": " + (n < 0 ? std::strerror(errno) : "shorter than the operand");
          ::close(fd);
          return false;
        }
        done += static_cast<uint64_t>(n);
      }
    }
    ::close(fd);
  }
  return true;
}

uint64_t covered_bytes(const std::vector<DumpPiece>& pieces) {
  uint64_t total = 0;
  for (const DumpPiece& d : pieces) total += d.bytes();
  return total;
}

}  // namespace

DeviceOperands::~DeviceOperands() {
  if (host_memory_) return;
  for (void* p : allocations_) cuda_.Free(p);
}

int DeviceOperands::allocate(void** out, uint64_t bytes) {
  *out = nullptr;
  int status = static_cast<int>(cuda_.Malloc(out, std::max<uint64_t>(bytes, 1)));
  if (status == 0) {
    allocations_.push_back(*out);
    device_bytes_ += bytes;
  }
  return status;
}

DeviceOperands::Buffer* DeviceOperands::owner(const std::string& name) {
  auto it = owner_of_.find(name);
  return it == owner_of_.end() ? nullptr : &buffers_.at(it->second);
}
const DeviceOperands::Buffer* DeviceOperands::owner(const std::string& name) const {
  auto it = owner_of_.find(name);
  return it == owner_of_.end() ? nullptr : &buffers_.at(it->second);
}

bool DeviceOperands::fill(Buffer& b, std::string& error) {
  const OperandPlan& o = *b.plan;
  const DataType type = static_cast<DataType>(o.data_type);
  const uint64_t elem = static_cast<uint64_t>(element_bytes(type));
  switch (o.fill) {
    case Fill::kDump:
      // Members no dump covers (a group whose dump is missing) keep the seeded values.
      if (covered_bytes(o.dump) < b.initial.size()) {
        SeededValues values(plan_.seed, o.name.c_str());
        fill_seeded(values, type, b.initial.data(), b.initial.size() / elem);
      }
      return read_pieces(o.dump, b.initial, b.member_bytes, error);
    case Fill::kOnes:
      fill_ones(type, b.initial.data(), b.initial.size() / elem);
      return true;
    case Fill::kRandom: {
      SeededValues values(plan_.seed, o.name.c_str());
      fill_seeded(values, type, b.initial.data(), b.initial.size() / elem);
      return true;
    }
  }
  return true;
}

bool DeviceOperands::setup(std::string& error, int& cuda_error) {
  cuda_error = 0;
  // Owners first: an operand that shares memory names an earlier one.
  for (const OperandPlan& o : plan_.operands) {
    if (o.null) continue;
    if (!o.same_memory_as.empty()) {
      if (!owner_of_.count(o.same_memory_as)) {
        error = "operand " + o.name + " shares memory with " + o.same_memory_as + ", which has none";
        return false;
      }
      const std::string root = owner_of_.at(o.same_memory_as);
      owner_of_[o.name] = root;
      Buffer& b = buffers_.at(root);
      // The shared buffer spans the larger of the two extents.
      if (o.bytes() > b.initial.size()) b.initial.resize(o.bytes());
      continue;
    }
    owner_of_[o.name] = o.name;
    Buffer& b = buffers_[o.name];
    b.plan = &o;
    const uint64_t members = o.pointer_array ? static_cast<uint64_t>(std::max<int64_t>(o.members, 1)) : 1;
    b.member_bytes = o.bytes();  // pointer arrays: one member's allocation
    b.initial.resize(b.member_bytes * members);
  }
  for (auto& [name, b] : buffers_) {
    if (!b.plan->pointer_array) b.member_bytes = b.initial.size();
    if (!fill(b, error)) return false;
    b.current = b.initial;
    // The program's result, laid out as the buffer (for --verify to compare with).
    for (const OperandPlan& o : plan_.operands) {
      if (o.program_result.empty() || owner_of_.count(o.name) == 0 || owner_of_.at(o.name) != name) continue;
      std::vector<unsigned char>& result = results_[o.name];
      result.assign(b.initial.size(), 0);
      std::string problem;
      if (!read_pieces(o.program_result, result, b.member_bytes, problem)) {
        results_.erase(o.name);
        result_problem_ = problem;
      }
    }
    if (host_memory_) {
      b.address = b.current.data();
      continue;
    }
    if (b.plan->pointer_array) {
      const uint64_t members = static_cast<uint64_t>(std::max<int64_t>(b.plan->members, 1));
      b.members.resize(members);
      for (uint64_t i = 0; i < members; ++i) {
        if ((cuda_error = allocate(&b.members[i], b.member_bytes)) != 0) {
          error = "cudaMalloc of " + std::to_string(b.member_bytes) + " bytes for member " + std::to_string(i) + " of " + name;
          return false;
        }
      }
      if ((cuda_error = allocate(&b.pointer_array, members * sizeof(void*))) != 0 ||
          (cuda_error = static_cast<int>(cuda_.Memcpy(b.pointer_array, b.members.data(), members * sizeof(void*),
                                                      cudaMemcpyHostToDevice))) != 0) {
        error = "the device pointer array of " + name;
        return false;
      }
    } else {
      if ((cuda_error = allocate(&b.base, b.initial.size() + kAlignmentSlack)) != 0) {
        error = "cudaMalloc of " + std::to_string(b.initial.size()) + " bytes for " + name;
        return false;
      }
      b.address = static_cast<char*>(b.base) + b.plan->misalignment % kAlignmentSlack;
    }
    if ((cuda_error = upload(name)) != 0) {
      error = "cudaMemcpy of " + name + " to the device";
      return false;
    }
  }
  return true;
}

uint64_t DeviceOperands::call_address(const std::string& name) const {
  const Buffer* b = owner(name);
  if (b == nullptr) return 0;  // a null operand
  return reinterpret_cast<uint64_t>(b->plan->pointer_array ? b->pointer_array : b->address);
}

int DeviceOperands::upload(const std::string& name) {
  Buffer* b = owner(name);
  if (b == nullptr) return 0;
  if (host_memory_) {
    b->current = b->initial;
    b->address = b->current.data();
    return 0;
  }
  if (b->plan->pointer_array) {
    for (size_t i = 0; i < b->members.size(); ++i) {
      int s = static_cast<int>(cuda_.Memcpy(b->members[i], b->initial.data() + i * b->member_bytes, b->member_bytes,
                                            cudaMemcpyHostToDevice));
      if (s != 0) return s;
    }
    return 0;
  }
  return static_cast<int>(cuda_.Memcpy(b->address, b->initial.data(), b->initial.size(), cudaMemcpyHostToDevice));
}

int DeviceOperands::download(const std::string& name) {
  Buffer* b = owner(name);
  if (b == nullptr || host_memory_) return 0;
  if (b->plan->pointer_array) {
    for (size_t i = 0; i < b->members.size(); ++i) {
      int s = static_cast<int>(cuda_.Memcpy(b->current.data() + i * b->member_bytes, b->members[i], b->member_bytes,
                                            cudaMemcpyDeviceToHost));
      if (s != 0) return s;
    }
    return 0;
  }
  return static_cast<int>(cuda_.Memcpy(b->current.data(), b->address, b->current.size(), cudaMemcpyDeviceToHost));
}

HostOperand DeviceOperands::initial(const std::string& name) const {
  const Buffer* b = owner(name);
  const OperandPlan* p = plan_.operand(name);
  if (b == nullptr || p == nullptr) return {};
  return HostOperand{p, b->initial.data()};
}

HostOperand DeviceOperands::program_result(const std::string& name, std::string& problem) const {
  auto it = results_.find(name);
  const OperandPlan* p = plan_.operand(name);
  problem = result_problem_;
  if (it == results_.end() || p == nullptr) return {};
  return HostOperand{p, it->second.data()};
}

HostOperand DeviceOperands::current(const std::string& name) const {
  const Buffer* b = owner(name);
  const OperandPlan* p = plan_.operand(name);
  if (b == nullptr || p == nullptr) return {};
  return HostOperand{p, b->current.data()};
}

}  // namespace cublasspy::replay

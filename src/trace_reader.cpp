#include "trace_reader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace cublasspy {

using namespace format;

std::vector<ArgView> CallView::args() const {
  std::vector<ArgView> out;
  if (function == nullptr) return out;
  uint16_t count = std::min<uint16_t>(function->arg_count, kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    out.push_back({function->args[i].name, static_cast<ArgKind>(function->args[i].kind),
                   slot.call.args[i]});
  }
  return out;
}

std::optional<uint64_t> CallView::arg(const char* name) const {
  if (function == nullptr) return std::nullopt;
  uint16_t count = std::min<uint16_t>(function->arg_count, kMaxArgs);
  for (uint16_t i = 0; i < count; ++i) {
    if (std::strncmp(function->args[i].name, name, kArgNameBytes) == 0) return slot.call.args[i];
  }
  return std::nullopt;
}

std::string ProcessInfo::get(const std::string& key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return v;
  }
  return "";
}

std::vector<std::string> ProcessInfo::all(const std::string& key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries) {
    if (k == key) out.push_back(v);
  }
  return out;
}

TraceFile::TraceFile(TraceFile&& o) noexcept { *this = std::move(o); }

TraceFile& TraceFile::operator=(TraceFile&& o) noexcept {
  if (this != &o) {
    if (base_ != nullptr) munmap(const_cast<char*>(base_), size_);
    path_ = std::move(o.path_);
    base_ = std::exchange(o.base_, nullptr);
    size_ = std::exchange(o.size_, 0);
    header_ = o.header_;
    process_ = std::move(o.process_);
    functions_ = std::move(o.functions_);
    held_ = o.held_;
    in_flight_ = std::move(o.in_flight_);
    torn_ = o.torn_;
  }
  return *this;
}

TraceFile::~TraceFile() {
  if (base_ != nullptr) munmap(const_cast<char*>(base_), size_);
}

namespace {

// A section [offset, offset+bytes) must lie inside the file, without overflow.
bool inside(uint64_t offset, uint64_t bytes, uint64_t size) {
  return offset <= size && bytes <= size - offset;
}

}  // namespace

std::optional<TraceFile> TraceFile::open(const std::string& path, std::string& error) {
  auto fail = [&](const std::string& why) {
    error = path + ": " + why;
    return std::nullopt;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < sizeof(FileHeader)) {
    ::close(fd);
    return fail(fmt::format("truncated: {} bytes, smaller than a trace header ({} bytes)", size,
                            sizeof(FileHeader)));
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return fail(std::string("cannot map: ") + std::strerror(errno));

  TraceFile t;
  t.path_ = path;
  t.base_ = static_cast<const char*>(map);
  t.size_ = size;
  std::memcpy(&t.header_, t.base_, sizeof(FileHeader));
  const FileHeader& h = t.header_;

  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return fail("not a cublasspy trace (bad magic)");
  if (h.endian_mark != kEndianMark) return fail("written on a machine of the other byte order");
  if (h.format_version < kOldestReadableVersion || h.format_version > kFormatVersion) {
    return fail(fmt::format("unknown format version {} (this reader reads {} to {})",
                            h.format_version, kOldestReadableVersion, kFormatVersion));
  }
  if (h.header_bytes != kHeaderBytes || h.record_bytes != kRecordBytes || h.word_bytes != 8) {
    return fail(fmt::format("corrupt header: header {} / record {} / word {} bytes", h.header_bytes,
                            h.record_bytes, h.word_bytes));
  }
  if (std::atomic_ref<const uint32_t>(
          *reinterpret_cast<const uint32_t*>(t.base_ + offsetof(FileHeader, header_complete)))
          .load() != 1) {
    return fail("incomplete: the process died while creating the trace");
  }
  if (h.function_count == 0 || h.function_count > kMaxFunctions) {
    return fail(fmt::format("corrupt header: {} functions", h.function_count));
  }
  if (h.ring_capacity == 0 || h.ring_capacity > (1ull << 32)) {
    return fail(fmt::format("corrupt header: ring of {} records", h.ring_capacity));
  }
  if (h.file_bytes != size) {
    return fail(fmt::format("truncated: {} bytes, the header says {}", size, h.file_bytes));
  }
  if (h.counter_stripes > kMaxCounterStripes) {
    return fail(fmt::format("corrupt header: {} counter stripes", h.counter_stripes));
  }
  const uint64_t stripes = h.counter_stripes == 0 ? 1 : h.counter_stripes;  // 0: an older writer
  if (!inside(h.process_offset, h.process_bytes, size) || h.process_used > h.process_bytes ||
      !inside(h.functions_offset, uint64_t{h.function_count} * sizeof(FunctionEntry), size) ||
      !inside(h.counters_offset, uint64_t{h.function_count} * stripes * sizeof(FunctionCounters), size) ||
      !inside(h.first_failure_offset, kRecordBytes, size) ||
      !inside(h.ring_offset, h.ring_capacity * kRecordBytes, size)) {
    return fail("corrupt header: a section lies outside the file");
  }

  // Process section: "key\0value\0" pairs.
  const char* p = t.base_ + h.process_offset;
  const char* end = p + h.process_used;
  while (p < end) {
    const char* key_end = static_cast<const char*>(std::memchr(p, '\0', end - p));
    if (key_end == nullptr || key_end == p) break;
    const char* value = key_end + 1;
    const char* value_end = value < end ? static_cast<const char*>(std::memchr(value, '\0', end - value)) : nullptr;
    if (value_end == nullptr) return fail("corrupt process section");
    t.process_.entries.emplace_back(std::string(p, key_end), std::string(value, value_end));
    p = value_end + 1;
  }

  t.functions_.resize(h.function_count);
  std::memcpy(t.functions_.data(), t.base_ + h.functions_offset, sizeof(FunctionEntry) * h.function_count);
  for (FunctionEntry& f : t.functions_) {
    f.name[kFunctionNameBytes - 1] = '\0';
    if (f.arg_count > kMaxArgs) return fail(fmt::format("corrupt function table entry '{}'", f.name));
    for (ArgDescriptor& a : f.args) a.name[kArgNameBytes - 1] = '\0';
  }

  // One pass over the records' first words: how many are held, which are in flight. Nothing
  // proportional to the ring is kept. Slots past the tickets handed out were never written.
  uint64_t tickets;
  std::memcpy(&tickets, t.base_ + offsetof(FileHeader, next_ticket), sizeof tickets);
  uint64_t used = std::min<uint64_t>(tickets, h.ring_capacity);
  // Map the used part in bulk: one request instead of a page fault every four records (older
  // kernels without MADV_POPULATE_READ get a read-ahead hint instead).
  char* used_from = const_cast<char*>(t.base_) + h.ring_offset / 4096 * 4096;
  size_t used_bytes = used * kRecordBytes + h.ring_offset % 4096;
#ifdef MADV_POPULATE_READ
  if (madvise(used_from, used_bytes, MADV_POPULATE_READ) != 0) madvise(used_from, used_bytes, MADV_WILLNEED);
#else
  madvise(used_from, used_bytes, MADV_WILLNEED);
#endif
  for (uint64_t i = 0; i < used; ++i) {
    uint64_t word;
    std::memcpy(&word, t.base_ + h.ring_offset + i * kRecordBytes, sizeof word);
    RecordState s = word_state(word);
    if (s == RecordState::kInFlight || s == RecordState::kCompleted) ++t.held_;
    if (s == RecordState::kInFlight) t.in_flight_.push_back(i);
    else if (s == RecordState::kWriting) ++t.torn_;
  }
  return t;
}

void TraceFile::for_each_call(const std::function<void(const CallView&)>& visit) const {
  // Records lie in the ring in ticket order, which is sequence order up to the interleaving of
  // threads between taking a sequence number and a slot: a window of kWindow (sequence, slot)
  // pairs, kept in a heap, puts them back in order before each record is copied out. Calls
  // still in flight were skipped over by later tickets and may sit anywhere; they were found at
  // open and are merged in by sequence. Pages the walk has left behind are handed back to the
  // kernel (they stay in the page cache), so memory stays flat however long the ring.
  constexpr size_t kWindow = 4096;
  struct Pending {
    uint64_t seq, index;
    bool operator<(const Pending& o) const { return seq > o.seq; }  // min-heap
  };
  std::vector<Pending> heap;
  heap.reserve(kWindow + 1);
  std::vector<CallView> flying;
  for (uint64_t index : in_flight_) {
    if (auto v = read_slot(index); v && v->in_flight()) flying.push_back(*v);
  }
  std::sort(flying.begin(), flying.end(), [](const CallView& a, const CallView& b) { return a.seq < b.seq; });
  size_t next_flying = 0;
  auto emit = [&](uint64_t index) {
    auto v = read_slot(index);
    if (!v) return;
    while (next_flying < flying.size() && flying[next_flying].seq < v->seq) visit(flying[next_flying++]);
    visit(*v);
  };
  const uint64_t cap = header_.ring_capacity;
  uint64_t tickets;
  std::memcpy(&tickets, base_ + offsetof(FileHeader, next_ticket), sizeof tickets);
  const uint64_t start = tickets > cap ? tickets % cap : 0;
  const uint64_t used = std::min(tickets, cap);
  const char* ring = base_ + header_.ring_offset;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t release_every = 8 * kWindow;
  for (uint64_t n = 0; n < used; ++n) {
    uint64_t index = (start + n) % cap;
    uint64_t word;
    std::memcpy(&word, ring + index * kRecordBytes, sizeof word);
    if (word_state(word) != RecordState::kCompleted) continue;
    heap.push_back({word_seq(word), index});
    std::push_heap(heap.begin(), heap.end());
    if (heap.size() > kWindow) {
      std::pop_heap(heap.begin(), heap.end());
      emit(heap.back().index);
      heap.pop_back();
    }
    if (n % release_every == release_every - 1 && n >= 2 * release_every) {
      // Give back the pages of slots walked past long ago (re-read transparently if needed).
      uint64_t first = (start + n - 2 * release_every + 1) % cap;
      uint64_t count = std::min(release_every, cap - first);
      uint64_t from = reinterpret_cast<uint64_t>(ring + first * kRecordBytes);
      uint64_t aligned = (from + page - 1) / page * page;
      uint64_t to = from + count * kRecordBytes;
      if (to > aligned + page) {
        madvise(reinterpret_cast<void*>(aligned), (to - aligned) / page * page, MADV_DONTNEED);
      }
    }
  }
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    emit(heap.back().index);
    heap.pop_back();
  }
  while (next_flying < flying.size()) visit(flying[next_flying++]);
}

std::optional<CallView> TraceFile::view_of(const RecordSlot& slot) const {
  CallView v;
  v.slot = slot;
  v.seq = word_seq(slot.call.word);
  v.state = word_state(slot.call.word);
  if (v.state != RecordState::kInFlight && v.state != RecordState::kCompleted) return std::nullopt;
  if (slot.call.function_id >= functions_.size()) return std::nullopt;
  v.function = &functions_[slot.call.function_id];
  return v;
}

std::optional<CallView> TraceFile::read_slot(uint64_t index) const {
  const char* at = base_ + header_.ring_offset + index * kRecordBytes;
  // Seqlock read: the word before and after the copy must agree, or the record was being
  // rewritten (possible only when reading a live process's trace).
  uint64_t before, after;
  std::memcpy(&before, at, sizeof before);
  RecordState state = word_state(before);
  if (state != RecordState::kInFlight && state != RecordState::kCompleted) return std::nullopt;
  std::optional<CallView> v(std::in_place);
  std::memcpy(&v->slot, at, sizeof v->slot);  // the one copy of the record
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(&after, at, sizeof after);
  if (before != after || v->slot.call.function_id >= functions_.size()) {
    ++torn_;
    return std::nullopt;
  }
  v->seq = word_seq(before);
  v->state = state;
  v->function = &functions_[v->slot.call.function_id];
  return v;
}

FunctionCounters TraceFile::counters(uint16_t id) const {
  FunctionCounters total{};
  if (id >= functions_.size()) return total;
  const uint64_t stripes = header_.counter_stripes == 0 ? 1 : header_.counter_stripes;
  for (uint64_t s = 0; s < stripes; ++s) {
    FunctionCounters c;
    std::memcpy(&c, base_ + header_.counters_offset + (s * functions_.size() + id) * sizeof c, sizeof c);
    total.calls += c.calls;
    total.failed += c.failed;
  }
  return total;
}

uint64_t TraceFile::total_calls() const {
  uint64_t sum = 0;
  for (uint16_t i = 0; i < functions_.size(); ++i) sum += counters(i).calls;
  return sum;
}

uint64_t TraceFile::total_failed() const {
  uint64_t sum = 0;
  for (uint16_t i = 0; i < functions_.size(); ++i) sum += counters(i).failed;
  return sum;
}

std::optional<CallView> TraceFile::first_failure() const {
  uint64_t seq;
  std::memcpy(&seq, base_ + offsetof(FileHeader, first_failure_seq), sizeof seq);
  if (seq == 0) return std::nullopt;
  RecordSlot copy;
  std::memcpy(&copy, base_ + header_.first_failure_offset, sizeof copy);
  auto v = view_of(copy);
  if (!v || v->seq != seq) {
    // The copy was not finished: the ring may still hold the record.
    std::optional<CallView> found;
    for_each_call([&](const CallView& c) {
      if (c.seq == seq) found = c;
    });
    return found;
  }
  return v;
}

const char* operation_name(int op) {
  switch (op) {
    case 0: return "N";
    case 1: return "T";
    case 2: return "C";
    case 3: return "CONJG";
    default: return "?";
  }
}

std::string data_type_text(int type) {
  static const std::pair<int, const char*> kNames[] = {
      {0, "CUDA_R_32F"}, {1, "CUDA_R_64F"}, {2, "CUDA_R_16F"}, {3, "CUDA_R_8I"},
      {4, "CUDA_C_32F"}, {5, "CUDA_C_64F"}, {6, "CUDA_C_16F"}, {7, "CUDA_C_8I"},
      {8, "CUDA_R_8U"}, {9, "CUDA_C_8U"}, {10, "CUDA_R_32I"}, {11, "CUDA_C_32I"},
      {12, "CUDA_R_32U"}, {13, "CUDA_C_32U"}, {14, "CUDA_R_16BF"}, {15, "CUDA_C_16BF"},
      {16, "CUDA_R_4I"}, {17, "CUDA_C_4I"}, {18, "CUDA_R_4U"}, {19, "CUDA_C_4U"},
      {20, "CUDA_R_16I"}, {21, "CUDA_C_16I"}, {22, "CUDA_R_16U"}, {23, "CUDA_C_16U"},
      {24, "CUDA_R_64I"}, {25, "CUDA_C_64I"}, {26, "CUDA_R_64U"}, {27, "CUDA_C_64U"},
      {28, "CUDA_R_8F_E4M3"}, {29, "CUDA_R_8F_E5M2"}};
  for (auto& [v, n] : kNames) {
    if (v == type) return n;
  }
  return std::to_string(type);
}

std::string compute_type_text(int type) {
  static const std::pair<int, const char*> kNames[] = {
      {64, "CUBLAS_COMPUTE_16F"}, {65, "CUBLAS_COMPUTE_16F_PEDANTIC"},
      {68, "CUBLAS_COMPUTE_32F"}, {69, "CUBLAS_COMPUTE_32F_PEDANTIC"},
      {70, "CUBLAS_COMPUTE_64F"}, {71, "CUBLAS_COMPUTE_64F_PEDANTIC"},
      {72, "CUBLAS_COMPUTE_32I"}, {73, "CUBLAS_COMPUTE_32I_PEDANTIC"},
      {74, "CUBLAS_COMPUTE_32F_FAST_16F"}, {75, "CUBLAS_COMPUTE_32F_FAST_16BF"},
      {77, "CUBLAS_COMPUTE_32F_FAST_TF32"}, {78, "CUBLAS_COMPUTE_32F_EMULATED_16BFX9"}};
  for (auto& [v, n] : kNames) {
    if (v == type) return n;
  }
  // Legacy cudaDataType compute types (cublasSgemmEx and older GemmEx callers).
  return data_type_text(type);
}

std::string cublas_status_name(int status) {
  switch (status) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return fmt::format("CUBLAS_STATUS_{}", status);
  }
}

std::string cuda_error_name(int error) {
  switch (error) {
    case 0: return "cudaSuccess";
    case 1: return "cudaErrorInvalidValue";
    case 2: return "cudaErrorMemoryAllocation";
    case 3: return "cudaErrorInitializationError";
    case 4: return "cudaErrorCudartUnloading";
    case 34: return "cudaErrorStubLibrary";
    case 35: return "cudaErrorInsufficientDriver";
    case 36: return "cudaErrorCallRequiresNewerDriver";
    case 100: return "cudaErrorNoDevice";
    case 101: return "cudaErrorInvalidDevice";
    case 209: return "cudaErrorNoKernelImageForDevice";
    case 700: return "cudaErrorIllegalAddress";
    case 701: return "cudaErrorLaunchOutOfResources";
    case 702: return "cudaErrorLaunchTimeout";
    case 719: return "cudaErrorLaunchFailure";
    case 803: return "cudaErrorSystemDriverMismatch";
    case 804: return "cudaErrorCompatNotSupportedOnDevice";
    case 999: return "cudaErrorUnknown";
    default: return fmt::format("cudaError {}", error);
  }
}

std::string status_name_for(const char* function, int status) {
  if (std::strncmp(function, "cublas", 6) == 0) return cublas_status_name(status);
  if (std::strncmp(function, "cuda", 4) == 0) return cuda_error_name(status);
  if (std::strncmp(function, "cu", 2) == 0) {
    // CUresult shares the common codes with cudaError (0, 1, 2, 3, 100, 700, 719, 999...).
    return status == 0 ? "CUDA_SUCCESS" : fmt::format("CUresult {}", status);
  }
  return std::to_string(status);
}

const char* pointer_mode_name(int mode) {
  switch (mode) {
    case 0: return "host";
    case 1: return "device";
    default: return "?";
  }
}

std::string math_mode_text(int mode) {
  constexpr int kDisallowReducedPrecision = 16;
  std::string base;
  switch (mode & ~kDisallowReducedPrecision) {
    case 0: base = "CUBLAS_DEFAULT_MATH"; break;
    case 1: base = "CUBLAS_TENSOR_OP_MATH"; break;
    case 2: base = "CUBLAS_PEDANTIC_MATH"; break;
    case 3: base = "CUBLAS_TF32_TENSOR_OP_MATH"; break;
    default: return std::to_string(mode);
  }
  if (mode & kDisallowReducedPrecision) base += "|CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";
  return base;
}

}  // namespace cublasspy

#include "trace/trace_reader.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "machine/process_info.h"
#include "trace/trace_upgrade.h"
#include "trace/trace_validation.h"

// Opening a trace (checked by trace_validation.cpp, older versions read through
// trace_upgrade.cpp), its process section, function table and counters. The record ring, the
// launch ring and the side area are read in files of their own (record_ring_reader.cpp,
// launch_ring_reader.cpp, side_area_reader.cpp).

namespace cublasspy {

using namespace format;

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
    if (fd_ >= 0) ::close(fd_);
    base_ = std::exchange(o.base_, nullptr);
    fd_ = std::exchange(o.fd_, -1);
    quiescent_ = o.quiescent_;
    size_ = std::exchange(o.size_, 0);
    header_ = o.header_;
    process_ = std::move(o.process_);
    functions_ = std::move(o.functions_);
    counted_ = o.counted_;
    held_ = o.held_;
    in_flight_ = std::move(o.in_flight_);
    torn_ = o.torn_;
  }
  return *this;
}

TraceFile::~TraceFile() {
  if (base_ != nullptr) munmap(const_cast<char*>(base_), size_);
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// True when no process can be writing the trace any more, so that one copy of the ring
// suffices (a live one is copied three times, a seqlock over the copies). A pid means this
// host's process only within the same pid namespace; there, a pid that no longer exists is
// proof. For a trace from elsewhere (or one written before pid_namespace was recorded), the
// writer's own record of how it ended is the evidence.
bool writer_gone(const char* base, const ProcessInfo& process) {
  const std::string ns = process.get("pid_namespace");
  if (!ns.empty() && ns == pid_namespace() && process.get("host") == host_name()) {
    const std::string pid_text = process.get("pid");
    char* end = nullptr;
    long pid = std::strtol(pid_text.c_str(), &end, 10);
    if (pid <= 0 || end == pid_text.c_str() || *end != '\0') return false;
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
  }
  uint32_t end_state = std::atomic_ref<const uint32_t>(
      *reinterpret_cast<const uint32_t*>(base + offsetof(FileHeader, end_state))).load();
  return end_state != static_cast<uint32_t>(EndState::kRunning);
}

}  // namespace

std::optional<TraceFile> TraceFile::open(const std::string& path, std::string& error,
                                         Access access) {
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
  if (map == MAP_FAILED) {
    const int err = errno;
    ::close(fd);
    return fail(std::string("cannot map: ") + std::strerror(err));
  }

  TraceFile t;
  t.fd_ = fd;  // the ring is read through it, the rest through the mapping
  t.path_ = path;
  t.base_ = static_cast<const char*>(map);
  t.size_ = size;
  std::memcpy(&t.header_, t.base_, sizeof(FileHeader));
  const FileHeader& h = t.header_;

  // The header is checked in two steps around its upgrade: what it is (a trace of a version
  // this reader reads), then, with the fields its version lacks reading as zero, where its
  // sections are (trace_validation.h, trace_upgrade.h).
  if (std::string why = identity_problem(h, t.base_); !why.empty()) return fail(why);
  upgrade_header(t.header_);
  if (std::string why = section_problem(h, size); !why.empty()) return fail(why);

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
    // The name comes from the file: quoted and escaped ({:?}), so the refusal stays one line.
    if (f.arg_count > kMaxArgs) {
      return fail(fmt::format("corrupt function table entry {:?}: {} argument slots, at most {}",
                              std::string_view(f.name), f.arg_count, kMaxArgs));
    }
    for (ArgDescriptor& a : f.args) a.name[kArgNameBytes - 1] = '\0';
    upgrade_function(f, h.format_version);
  }

  t.quiescent_ = access == Access::kAuto && writer_gone(t.base_, t.process_);

  // Version 1 kept no list of the slots it skipped: its calls in flight are found first.
  if (h.format_version < 2) t.count_records();
  return t;
}

uint64_t TraceFile::load_header_u64(size_t offset) const {
  // Fields a live writer updates: read from the mapping, atomically.
  return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(base_ + offset)).load();
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
  // Version 10: the unchanged setters' calls are counted apart, and are calls too.
  total.calls += unchanged(id);
  return total;
}

uint64_t TraceFile::unchanged(uint16_t id) const {
  if (id >= functions_.size() || header_.unchanged_offset == 0) return 0;
  const uint64_t stripes = header_.counter_stripes == 0 ? 1 : header_.counter_stripes;
  uint64_t total = 0;
  for (uint64_t s = 0; s < stripes; ++s) {
    uint64_t n = 0;
    if (!read_at(header_.unchanged_offset + (s * functions_.size() + id) * sizeof n, &n, sizeof n)) return 0;
    total += n;
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

bool TraceFile::read_at(uint64_t offset, void* out, uint64_t bytes) const {
  uint64_t got = 0;
  while (got < bytes) {
    ssize_t r = ::pread(fd_, static_cast<char*>(out) + got, bytes - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<uint64_t>(r);
  }
  return true;
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

const char* pointer_mode_name(int mode) {
  switch (mode) {
    case 0: return "host";
    case 1: return "device";
    default: return "?";
  }
}

}  // namespace cublasspy

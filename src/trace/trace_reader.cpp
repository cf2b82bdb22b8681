#include "trace/trace_reader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cxxabi.h>

#include <fmt/format.h>

#include "trace/process_info.h"
#include "trace/roles_from_names.h"

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

// A section [offset, offset+bytes) must lie inside the file, without overflow.
bool inside(uint64_t offset, uint64_t bytes, uint64_t size) {
  return offset <= size && bytes <= size - offset;
}

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

// A writer version is a release name (0.1.0, 1.2.0~rc1+git5): anything else is not one, and
// the refusal must not print control characters from the file.
bool writer_version_valid(const char (&v)[kWriterVersionBytes]) {
  const char* nul = static_cast<const char*>(std::memchr(v, '\0', sizeof v));
  if (nul == nullptr) return false;
  return std::all_of(v, nul, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == '+' || c == '~' || c == '_' || c == '-';
  });
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
  if (h.format_version < 4) {
    std::memset(t.header_.writer_version, 0, sizeof t.header_.writer_version);  // not recorded
  } else if (!writer_version_valid(h.writer_version)) {
    return fail(fmt::format("corrupt header: writer version {:?} is not a version",
                            std::string_view(h.writer_version, strnlen(h.writer_version, kWriterVersionBytes))));
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
  // Version 4's side area; older writers left these bytes zero, and a reader of their traces
  // finds no entries (side_entries() checks the version).
  if (h.format_version >= 4 && h.side_bytes != 0 &&
      (h.side_offset % 8 != 0 || h.side_bytes % 8 != 0 || !inside(h.side_offset, h.side_bytes, size) ||
       h.side_offset < h.ring_offset + h.ring_capacity * kRecordBytes)) {
    return fail(fmt::format("corrupt header: side area of {} bytes at {} is not in its place",
                            h.side_bytes, h.side_offset));
  }

  // Version 4: the launch ring and the kernel table, where there are any; older versions had
  // none (their bytes there are zero, and read as zero whatever they hold).
  if (h.format_version < 4) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, launch_offset), 0,
                offsetof(FileHeader, reserved_launches) + sizeof h.reserved_launches - offsetof(FileHeader, launch_offset));
  } else if (h.launch_offset != 0 || h.launch_capacity != 0 || h.kernels_offset != 0 || h.kernel_capacity != 0) {
    // Any of the four set means there is a launch ring, and all of them must then hold up: a
    // kernel table without a ring (found by the fuzzer) would be read from anywhere.
    if (h.launch_entry_bytes != sizeof(LaunchEntry) || h.launch_capacity == 0 || h.launch_capacity > (1ull << 32) ||
        h.kernel_capacity > kMaxKernels) {
      return fail(fmt::format("corrupt header: launch ring of {} entries of {} bytes, {} kernels", h.launch_capacity,
                              h.launch_entry_bytes, h.kernel_capacity));
    }
    if (!inside(h.launch_offset, h.launch_capacity * sizeof(LaunchEntry), size) ||
        !inside(h.kernels_offset, uint64_t{h.kernel_capacity} * sizeof(KernelEntry), size)) {
      return fail("corrupt header: the launch ring lies outside the file");
    }
  }

  // Version 5: the launcher's wait status; older versions had none (their bytes read as zero).
  // A status that is neither an exit nor a death by signal is no wait status.
  if (h.format_version < 5) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, launcher_wait), 0,
                sizeof(FileHeader) - offsetof(FileHeader, launcher_wait));
  } else if (h.launcher_wait > static_cast<uint32_t>(LauncherWait::kCommand) ||
             (h.launcher_wait != 0 && !WIFEXITED(h.launcher_status) && !WIFSIGNALED(h.launcher_status))) {
    return fail(fmt::format("corrupt header: launcher wait {} with status {:#x}", h.launcher_wait,
                            static_cast<uint32_t>(h.launcher_status)));
  }

  // Version 6: the launch count tables and the launch tickets' blocks; older versions had
  // neither (one ticket a launch, the totals in the kernel table).
  if (h.format_version < 6) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, launch_counts_offset), 0,
                offsetof(FileHeader, reserved_launch_totals) + sizeof h.reserved_launch_totals -
                    offsetof(FileHeader, launch_counts_offset));
  } else if (h.launch_counts_offset != 0 || h.launch_count_tables != 0) {
    if (h.launch_capacity == 0 || h.launch_count_tables == 0 || h.launch_count_tables > kMaxLaunchCountTables ||
        h.launch_counts_offset % 8 != 0 ||
        !inside(h.launch_counts_offset,
                uint64_t{h.launch_count_tables} * (uint64_t{h.kernel_capacity} + 1) * sizeof(uint64_t), size)) {
      return fail(fmt::format("corrupt header: {} launch count tables at {} are not in their place",
                              h.launch_count_tables, h.launch_counts_offset));
    }
  }

  // Version 6, pinned line: the first failed launch; older versions had none (their bytes there
  // read as zero whatever they hold). Any value is safe: the launch is looked up by ticket in
  // the ring, its side chain is checked entry by entry.
  if (h.format_version < 6) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, first_failed_launch), 0,
                offsetof(FileHeader, reserved_pinned_line) - offsetof(FileHeader, first_failed_launch));
  }
  // Version 8, graphs: no stale graph launch before; any value is safe (the launch and the GEMM
  // are looked up by ticket and seq, the role is named or shown as a number).
  if (h.format_version < 8) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, stale_replay_launch), 0,
                offsetof(FileHeader, reserved_ends) - offsetof(FileHeader, stale_replay_launch));
  }
  // Version 9, failure sites: none before. A table must lie in the file, between the first
  // failure's record and the ring, in entries of this reader's size.
  if (h.format_version < 9) {
    std::memset(reinterpret_cast<char*>(&t.header_) + offsetof(FileHeader, failure_sites_offset), 0,
                sizeof(FileHeader) - offsetof(FileHeader, failure_sites_offset));
  } else if (h.failure_sites_offset != 0 || h.failure_site_capacity != 0) {
    if (h.failure_site_bytes != sizeof(FailureSite) || h.failure_site_capacity == 0 ||
        h.failure_site_capacity > kMaxFailureSites || h.failure_sites_offset % 8 != 0 ||
        !inside(h.failure_sites_offset, uint64_t{h.failure_site_capacity} * sizeof(FailureSite), size) ||
        h.failure_sites_offset + uint64_t{h.failure_site_capacity} * sizeof(FailureSite) > h.ring_offset) {
      return fail(fmt::format("corrupt header: {} failure sites of {} bytes at {} are not in their place",
                              h.failure_site_capacity, h.failure_site_bytes, h.failure_sites_offset));
    }
  }

  // Version 10, unchanged setters: no counts before (the bytes were reserved, and read as
  // zero whatever they hold). The counts lie in the file, striped like the counters.
  if (h.format_version < 10) {
    t.header_.unchanged_offset = 0;
  } else if (h.unchanged_offset != 0 &&
             (h.unchanged_offset % 8 != 0 ||
              !inside(h.unchanged_offset, uint64_t{h.function_count} * stripes * sizeof(uint64_t), size))) {
    return fail(fmt::format("corrupt header: unchanged setters' counts at {} lie outside the file", h.unchanged_offset));
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
    // The name comes from the file: quoted and escaped ({:?}), so the refusal stays one line.
    if (f.arg_count > kMaxArgs) {
      return fail(fmt::format("corrupt function table entry {:?}: {} argument slots, at most {}",
                              std::string_view(f.name), f.arg_count, kMaxArgs));
    }
    for (ArgDescriptor& a : f.args) a.name[kArgNameBytes - 1] = '\0';
    // Before version 3 the table held names only: what they mean is derived here, once, so
    // every reader of the table finds fields by role whatever the version.
    if (h.format_version < 3) derive_roles_from_names(f);
    // Before version 11 it did not say what a function means: derived the same way.
    if (h.format_version < 11) derive_traits_from_names(f);
  }

  t.quiescent_ = access == Access::kAuto && writer_gone(t.base_, t.process_);

  // Version 1 kept no list of the slots it skipped: its calls in flight are found first.
  if (h.format_version < 2) t.count_records();
  return t;
}

void TraceFile::count_records() const {
  held_ = torn_ = 0;
  in_flight_.clear();
  walk_ring([&](uint64_t ticket, uint64_t index, const RecordSlot& slot, bool stable) {
    const uint64_t word = slot.call.word;
    RecordState s = word_state(word);
    if (!stable) {
      ++torn_;  // being rewritten as it was read
    } else if (s == RecordState::kInFlight) {
      ++held_;
      in_flight_.push_back(index);
    } else if (s == RecordState::kCompleted && is_current(word, ticket)) {
      ++held_;
    } else if (s == RecordState::kWriting) {
      ++torn_;
    }
  });
  counted_ = true;
}

uint64_t TraceFile::records_held() const {
  if (!counted_) count_records();
  return held_;
}

uint64_t TraceFile::torn_records() const {
  if (!counted_) count_records();
  return torn_;
}

uint64_t TraceFile::copy_slots(uint64_t index, uint64_t count, RecordSlot* out,
                               std::vector<RecordSlot>& scratch, bool* stable) const {
  auto copy = [&](RecordSlot* to) {
    const uint64_t bytes = count * kRecordBytes;
    uint64_t got = 0;
    while (got < bytes) {
      ssize_t r = ::pread(fd_, reinterpret_cast<char*>(to) + got, bytes - got,
                          static_cast<off_t>(header_.ring_offset + index * kRecordBytes + got));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<uint64_t>(r);
    }
    return got / kRecordBytes;  // a file cut short since it was opened gives fewer
  };
  if (quiescent_) {
    const uint64_t whole = copy(out);
    std::fill(stable, stable + whole, true);
    return whole;
  }
  // A live trace: copies before and after this one must show each record's word unchanged.
  // Words never repeat (each record has a new seq, and a seq's states only move forward), so
  // equal words mean nobody rewrote the record from before this copy began until after it
  // ended, whatever order the kernel copied its bytes in: the seqlock, for a whole chunk.
  if (scratch.size() < count) scratch.resize(count);
  uint64_t whole = copy(scratch.data());
  whole = std::min(whole, copy(out));
  for (uint64_t i = 0; i < whole; ++i) stable[i] = scratch[i].call.word == out[i].call.word;
  whole = std::min(whole, copy(scratch.data()));
  for (uint64_t i = 0; i < whole; ++i) stable[i] = stable[i] && scratch[i].call.word == out[i].call.word;
  return whole;
}

template <typename Visit>
void TraceFile::walk_ring(Visit&& visit) const {
  const uint64_t cap = header_.ring_capacity;
  const uint64_t tickets = load_header_u64(offsetof(FileHeader, next_ticket));
  // Slots past the tickets handed out were never written; once the ring has wrapped, the oldest
  // ticket is the slot the next claim would take.
  const uint64_t start = tickets > cap ? tickets % cap : 0;
  const uint64_t used = std::min(tickets, cap);
  const uint64_t first = tickets - used;  // the ticket of the oldest slot: slot n has first + n
  // The ring is copied in chunks, never touched through the mapping: on machines where mapping
  // a page costs microseconds (virtual machines that shadow page tables) copying is several
  // times faster, a file cut short meanwhile gives a short read instead of SIGBUS, and memory
  // stays a chunk (or three, for a live trace).
  constexpr uint64_t kChunk = 256;  // records: 256 KiB, stays in the cache
  const uint64_t chunk_records = std::min(kChunk, std::max<uint64_t>(used, 1));
  std::vector<RecordSlot> chunk(chunk_records), scratch;
  std::unique_ptr<bool[]> stable(new bool[chunk_records]);
  for (uint64_t n = 0; n < used;) {
    const uint64_t index = (start + n) % cap;
    const uint64_t count = std::min({chunk_records, used - n, cap - index});
    const uint64_t got = copy_slots(index, count, chunk.data(), scratch, stable.get());
    for (uint64_t i = 0; i < got; ++i) visit(first + n + i, index + i, chunk[i], stable[i]);
    if (got < count) return;  // the file ends early: its last whole record ends the walk
    n += count;
  }
}

uint64_t TraceFile::load_header_u64(size_t offset) const {
  // Fields a live writer updates: read from the mapping, atomically.
  return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(base_ + offset)).load();
}

bool TraceFile::is_current(uint64_t word, uint64_t ticket) const {
  // Version 2 numbers a record by its ticket. A completed record under an older ticket sits in
  // a slot a newer ticket was handed for (a block whose thread moved on, or exited, before
  // using it): that record belongs to an earlier round of the ring, as overwritten as if the
  // newer call had been written there.
  return header_.format_version < 2 || word_seq(word) == ticket + 1;
}

TraceFile::OrderKey TraceFile::order_key(const CallView& v) const {
  // Version 1 numbered calls in the order they began; version 2's numbers come in per-thread
  // blocks, so the start time orders the calls (the number breaks ties): began_before()'s
  // order, as a key.
  if (header_.format_version < 2) return {v.seq, 0};
  return {v.rec().start_ns, v.seq};
}

uint64_t TraceFile::reorder_window() const {
  // How far apart (in slots) two records out of order can lie. Version 1 had no bound; 4096
  // was always enough there. Version 2's writer keeps records within about claim_lag +
  // claim_block of their place; twice that covers a thread preempted between taking its slot
  // and reading the clock. A corrupt header cannot ask for more than 64 Ki records of memory.
  if (header_.format_version < 2) return 4096;
  const uint64_t needed = 2 * (uint64_t{header_.claim_lag} + header_.claim_block);
  return std::clamp<uint64_t>(needed, 512, 65536);
}

std::vector<uint64_t> TraceFile::passed_over_slots() const {
  // Version 1: every call in flight (found at open). Version 2: the slots claims passed over
  // (the header's list) whose call is still in flight under an older ticket than its slot's.
  std::vector<uint64_t> out;
  if (header_.format_version < 2) {
    out = in_flight_;
  } else {
    const uint64_t cap = header_.ring_capacity;
    const uint64_t tickets = load_header_u64(offsetof(FileHeader, next_ticket));
    const uint64_t used = std::min(tickets, cap), first = tickets - used;
    const uint64_t listed = std::min<uint64_t>(load_header_u64(offsetof(FileHeader, skipped_count)), kSkippedSlots);
    for (uint64_t n = 0; n < listed; ++n) {
      const uint64_t index = load_header_u64(offsetof(FileHeader, skipped) + n * sizeof(uint64_t));
      if (index >= used) continue;  // a corrupt entry, or a slot no ticket reached
      const uint64_t ticket = first + (index + cap - first % cap) % cap;
      CallView v;
      if (fetch_slot(index, v) && v.in_flight() && !is_current(v.slot.call.word, ticket)) out.push_back(index);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void TraceFile::for_each_call(const std::function<void(const CallView&)>& visit) const {
  // Records lie in the ring in ticket order, which is call order up to a bounded displacement
  // (reorder_window()): a heap of that many records, kept by order_key, puts them back in
  // order. Each record is copied once, into a pool the size of the window, and handed to
  // `visit` from there, so memory stays flat however long the ring, and the ring is read once.
  // A call in flight for a whole round of the ring sits among later records; such calls are
  // known before the walk (passed_over_slots) and merged in by the same key.
  if (header_.format_version < 2 && !counted_) count_records();
  const uint64_t window = reorder_window();
  struct Pending {
    OrderKey key;
    uint32_t pool_index;
    bool operator<(const Pending& o) const { return o.key < key; }  // min-heap
  };
  const uint64_t cap = header_.ring_capacity;
  const uint64_t slots = std::max<uint64_t>(std::min(load_header_u64(offsetof(FileHeader, next_ticket)), cap), 1);
  std::vector<CallView> pool(std::min(window + 1, slots));
  std::vector<uint32_t> free_slots(pool.size());
  for (uint32_t i = 0; i < free_slots.size(); ++i) free_slots[i] = static_cast<uint32_t>(pool.size() - 1 - i);
  std::vector<Pending> heap;
  heap.reserve(pool.size());

  const std::vector<uint64_t> passed_over = passed_over_slots();
  std::vector<CallView> flying;
  for (uint64_t index : passed_over) {
    if (auto v = fetch_slot(index); v && v->in_flight()) flying.push_back(*v);
  }
  std::sort(flying.begin(), flying.end(),
            [&](const CallView& a, const CallView& b) { return order_key(a) < order_key(b); });
  size_t next_flying = 0;
  auto emit_first = [&] {
    std::pop_heap(heap.begin(), heap.end());
    const Pending first = heap.back();
    heap.pop_back();
    while (next_flying < flying.size() && order_key(flying[next_flying]) < first.key) {
      visit(flying[next_flying++]);
    }
    visit(pool[first.pool_index]);
    free_slots.push_back(first.pool_index);
  };
  // The walk also counts what records_held() and torn_records() report.
  uint64_t held = 0, torn = 0;
  walk_ring([&](uint64_t ticket, uint64_t index, const RecordSlot& slot, bool stable) {
    const uint64_t word = slot.call.word;
    const RecordState state = word_state(word);
    if (state == RecordState::kWriting || !stable) ++torn;
    if (!stable) return;
    if (state != RecordState::kCompleted && state != RecordState::kInFlight) return;
    if (state == RecordState::kCompleted && !is_current(word, ticket)) return;  // overwritten
    if (std::binary_search(passed_over.begin(), passed_over.end(), index)) return;  // in `flying`
    if (free_slots.empty()) emit_first();  // a ring grown since open: the pool is full
    const uint32_t i = free_slots.back();
    if (!copy_view(slot, pool[i])) {
      ++torn;
      return;
    }
    ++held;
    free_slots.pop_back();
    heap.push_back({order_key(pool[i]), i});
    std::push_heap(heap.begin(), heap.end());
    if (heap.size() > window) emit_first();
  });
  while (!heap.empty()) emit_first();
  while (next_flying < flying.size()) visit(flying[next_flying++]);
  held_ = held + flying.size();
  torn_ = torn;
  counted_ = true;
}

std::string demangle(const std::string& symbol) {
  int status = -1;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : symbol;
}

format::Library LaunchView::library() const {
  return function ? static_cast<format::Library>(function->library) : format::Library::kUnknown;
}

std::string TraceFile::kernel_name(uint16_t index) const {
  const FileHeader& h = header_;
  if (index == kNoKernel || index >= h.kernel_capacity) return "";
  KernelEntry k;
  std::memcpy(&k, base_ + h.kernels_offset + uint64_t{index} * sizeof(KernelEntry), sizeof k);
  if (std::atomic_ref<uint32_t>(k.named).load() != 1) return "";
  k.name[kKernelNameBytes - 1] = '\0';
  return demangle(k.name);
}

bool TraceFile::copy_launch(uint64_t ticket, LaunchView& out) const {
  const FileHeader& h = header_;
  const char* at = base_ + h.launch_offset + (ticket % h.launch_capacity) * sizeof(LaunchEntry);
  // A seqlock: the entry counts only if its word is the same before and after the copy.
  auto word = [&] { return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(at)).load(); };
  const uint64_t before = word();
  std::memcpy(&out.entry, at, sizeof out.entry);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (word() != before || before != pack_word(ticket + 1, RecordState::kCompleted)) return false;
  if (out.entry.function_id >= functions_.size()) return false;
  out.ticket = ticket;
  out.function = &functions_[out.entry.function_id];
  out.kernel = kernel_name(out.entry.kernel);
  return true;
}

void TraceFile::for_each_launch(const std::function<void(const LaunchView&)>& visit) const {
  const FileHeader& h = header_;
  if (h.launch_capacity == 0) return;
  const uint64_t next = std::atomic_ref<const uint64_t>(
                            *reinterpret_cast<const uint64_t*>(base_ + offsetof(FileHeader, launch_next)))
                            .load();
  // Version 6's threads take tickets in blocks: entries lie within launch_lag + launch_block of
  // their launch order (twice that covers a thread preempted between its ticket and its clock),
  // and a heap of that many puts them back in order (launched_before's), as for_each_call does.
  // Older writers took one ticket a launch; a small window still orders a preempted thread's.
  const uint64_t window = std::min<uint64_t>(
      h.launch_capacity,
      h.format_version < 6 ? 64 : std::clamp<uint64_t>(2 * (uint64_t{h.launch_lag} + h.launch_block), 64, 65536));
  auto later = [](const LaunchView& a, const LaunchView& b) { return launched_before(b, a); };
  std::vector<LaunchView> heap;  // a min-heap by launch order
  heap.reserve(window + 1);
  auto emit_first = [&] {
    std::pop_heap(heap.begin(), heap.end(), later);
    visit(heap.back());
    heap.pop_back();
  };
  LaunchView v;
  for (uint64_t t = next > h.launch_capacity ? next - h.launch_capacity : 0; t < next; ++t) {
    if (!copy_launch(t, v)) continue;
    heap.push_back(std::move(v));
    std::push_heap(heap.begin(), heap.end(), later);
    if (heap.size() > window) emit_first();
  }
  while (!heap.empty()) emit_first();
}

uint64_t TraceFile::launch_count(uint32_t table, uint32_t entry) const {
  const FileHeader& h = header_;
  const uint64_t at = h.launch_counts_offset + (uint64_t{table} * (uint64_t{h.kernel_capacity} + 1) + entry) * sizeof(uint64_t);
  return std::atomic_ref<const uint64_t>(*reinterpret_cast<const uint64_t*>(base_ + at)).load(std::memory_order_relaxed);
}

uint64_t TraceFile::total_launches() const {
  const FileHeader& h = header_;
  // Version 6: tickets come in blocks, some never used; the count tables say what was made.
  if (h.launch_counts_offset == 0) return h.launch_next;
  uint64_t sum = 0;
  for (uint32_t table = 0; table < h.launch_count_tables; ++table) {
    for (uint32_t entry = 0; entry <= h.kernel_capacity; ++entry) sum += launch_count(table, entry);
  }
  return sum;
}

std::optional<LaunchView> TraceFile::first_launch_error() const {
  const uint64_t first = std::atomic_ref<const uint64_t>(
                             *reinterpret_cast<const uint64_t*>(base_ + offsetof(FileHeader, first_launch_error)))
                             .load();
  if (first == 0) return std::nullopt;
  return launch_at(first - 1);
}

std::optional<LaunchView> TraceFile::launch_at(uint64_t ticket) const {
  if (header_.launch_capacity == 0) return std::nullopt;
  LaunchView v;
  if (!copy_launch(ticket, v)) return std::nullopt;  // the entry's word must be this ticket's
  return v;
}

std::vector<KernelTotal> TraceFile::kernel_totals() const {
  const FileHeader& h = header_;
  std::vector<KernelTotal> out;
  for (uint32_t i = 0; i < h.kernel_capacity; ++i) {
    KernelEntry k;
    std::memcpy(&k, base_ + h.kernels_offset + uint64_t{i} * sizeof(KernelEntry), sizeof k);
    uint64_t launches = k.launches;  // versions 4 and 5; version 6: the count tables'
    if (h.launch_counts_offset != 0) {
      for (uint32_t table = 0; table < h.launch_count_tables; ++table) launches += launch_count(table, i);
    }
    if (k.function == 0 || launches == 0) continue;
    KernelTotal total;
    total.launches = launches;
    if (k.function_id < functions_.size()) total.function = &functions_[k.function_id];
    total.name = kernel_name(static_cast<uint16_t>(i));
    out.push_back(std::move(total));
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelTotal& a, const KernelTotal& b) { return a.launches > b.launches; });
  return out;
}

bool TraceFile::copy_view(const RecordSlot& slot, CallView& out) const {
  const uint64_t word = slot.call.word;
  const RecordState state = word_state(word);
  if (state != RecordState::kInFlight && state != RecordState::kCompleted) return false;
  if (slot.call.function_id >= functions_.size()) return false;
  std::memcpy(&out.slot, &slot, offsetof(RecordSlot, pad));  // the padding carries nothing
  // Bytes that were padding before version 4 carry nothing either.
  if (header_.format_version < 4) out.slot.pending_error = 0;
  if (header_.format_version < 7) out.slot.lt_emulation = {};
  if (header_.format_version < 8) out.slot.capture_id = 0;
  if (header_.format_version < 9) out.slot.failure_site = 0;
  if (header_.format_version < 10) {
    out.slot.workspace = 0;
    out.slot.workspace_bytes = 0;
    out.slot.call.flags &= ~(kFlagWorkspaceKnown | kFlagUnchangedSetter);
  }
  out.seq = word_seq(word);
  out.state = state;
  out.function = &functions_[slot.call.function_id];
  // What other families' records leave in these fields is an earlier call's (trace_format.h).
  if (!has_pending_error(out.function->family)) {
    out.slot.pending_error = 0;
    out.slot.capture_id = 0;
  }
  if (!has_plane_offsets(out.function->family)) std::fill(std::begin(out.slot.plane_offset), std::end(out.slot.plane_offset), 0);
  return true;
}

bool TraceFile::fetch_slot(uint64_t index, CallView& out) const {
  RecordSlot slot;
  std::vector<RecordSlot> scratch;
  bool stable = false;
  return copy_slots(index, 1, &slot, scratch, &stable) == 1 && stable && copy_view(slot, out);
}

std::optional<CallView> TraceFile::fetch_slot(uint64_t index) const {
  std::optional<CallView> v(std::in_place);
  if (!fetch_slot(index, *v)) return std::nullopt;
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

uint64_t TraceFile::side_used() const {
  if (header_.format_version < 4 || header_.side_bytes == 0) return 0;
  return std::min(load_header_u64(offsetof(FileHeader, side_used)), header_.side_bytes);
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

std::vector<SideEntryView> TraceFile::side_entries(const CallView& call) const {
  std::vector<SideEntryView> own = side_chain(call.slot.side_head, call.seq);
  if (!call.failed() || call.slot.failure_site == 0) return own;
  const auto is_location = [](const SideEntryView& e) {
    return e.kind == static_cast<uint32_t>(SideKind::kPythonStack) || e.kind == static_cast<uint32_t>(SideKind::kNativeStack);
  };
  if (std::any_of(own.begin(), own.end(), is_location)) return own;
  // A failure that repeated its site's first took no locations: the first's are its (and its
  // own entries of other kinds, a grouped GEMM's groups, stay its own).
  const std::optional<FailureSiteView> site = failure_site(call.slot.failure_site - 1);
  const int32_t status = call.rec().status != 0 ? call.rec().status : call.rec().async_status;
  if (!site || !site->first || site->function_id != call.rec().function_id || site->status != status ||
      site->first->seq == call.seq) {
    return own;
  }
  for (SideEntryView& e : side_chain(site->first->slot.side_head, site->first->seq)) {
    if (is_location(e)) own.push_back(std::move(e));
  }
  return own;
}

std::optional<FailureSiteView> TraceFile::failure_site(uint32_t index) const {
  const FileHeader& h = header_;
  if (h.failure_sites_offset == 0 || index >= h.failure_site_capacity) return std::nullopt;
  FailureSite site;
  if (!read_at(h.failure_sites_offset + uint64_t{index} * sizeof(FailureSite), &site, sizeof site)) return std::nullopt;
  if (site.state != static_cast<uint32_t>(FailureSiteState::kKeyed) || site.function_id >= functions_.size()) {
    return std::nullopt;
  }
  FailureSiteView v;
  v.index = index;
  v.function_id = site.function_id;
  v.function = &functions_[site.function_id];
  v.status = site.status;
  v.return_address = site.return_address;
  v.python_line = site.python_line;
  v.count = site.count;
  CallView first;
  // The copy is complete once first_seq is set (the writer stores it last); a copy whose own
  // word disagrees was torn or overwritten.
  if (site.first_seq != 0 && copy_view(site.first, first) && first.seq == site.first_seq &&
      first.rec().function_id == site.function_id) {
    v.first = std::move(first);
  }
  return v;
}

std::vector<FailureSiteView> TraceFile::failure_sites() const {
  std::vector<FailureSiteView> out;
  for (uint32_t i = 0; i < header_.failure_site_capacity; ++i) {
    if (auto site = failure_site(i)) out.push_back(std::move(*site));
  }
  return out;
}

std::optional<uint64_t> TraceFile::first_failed_launch() const {
  if (header_.format_version < 6) return std::nullopt;
  const uint64_t first = load_header_u64(offsetof(FileHeader, first_failed_launch));
  if (first == 0) return std::nullopt;
  return first - 1;
}

std::vector<SideEntryView> TraceFile::launch_side_entries(uint64_t ticket) const {
  const std::optional<uint64_t> first = first_failed_launch();
  if (!first || *first != ticket) return {};
  // The ticket + 1 as the entries' seq (a ticket of ~0 has no seq and no entries).
  if (ticket + 1 == 0) return {};
  return side_chain(load_header_u64(offsetof(FileHeader, first_failed_launch_side)), ticket + 1);
}

std::vector<SideEntryView> TraceFile::side_chain(uint64_t head, uint64_t seq) const {
  std::vector<SideEntryView> found;
  const uint64_t used = side_used();
  if (used == 0) return found;
  const uint64_t begin = header_.side_offset;
  // Read through the file, never the mapping (a file cut short gives a short read, not SIGBUS).
  // The header of an entry is read before its data: the writer stored the kind last, with
  // release order, so once the kind reads nonzero the data read after it is complete.
  uint64_t at = head;
  while (at != 0 && found.size() < kMaxSideEntriesPerRecord) {
    if (at < begin || (at - begin) % 8 != 0 || at - begin > used || used - (at - begin) < sizeof(SideEntry)) break;
    SideEntry entry;
    if (!read_at(at, &entry, sizeof entry)) break;
    const uint64_t room = used - (at - begin) - sizeof(SideEntry);
    if (entry.kind == 0 || entry.seq != seq || entry.length > kMaxSideEntryBytes ||
        entry.length > room) {
      break;  // not published, another record's, or corrupt: nothing older can be trusted
    }
    SideEntryView view;
    view.kind = entry.kind;
    view.seq = entry.seq;
    view.bytes.resize(entry.length);
    if (!read_at(at + sizeof(SideEntry), view.bytes.data(), entry.length)) break;
    found.push_back(std::move(view));
    // Links only go down (an entry is written after the one it names), so the walk ends.
    at = entry.prev < at ? entry.prev : 0;
  }
  std::reverse(found.begin(), found.end());
  return found;
}

std::optional<SideEntryView> TraceFile::side_entry(const CallView& call, uint32_t kind) const {
  for (SideEntryView& e : side_entries(call)) {
    if (e.kind == kind) return std::move(e);
  }
  return std::nullopt;
}

std::optional<CallView> TraceFile::first_failure() const {
  uint64_t seq;
  std::memcpy(&seq, base_ + offsetof(FileHeader, first_failure_seq), sizeof seq);
  if (seq == 0) return std::nullopt;
  RecordSlot copy;
  std::memcpy(&copy, base_ + header_.first_failure_offset, sizeof copy);
  std::optional<CallView> v(std::in_place);
  if (!copy_view(copy, *v) || v->seq != seq) {
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

const char* pointer_mode_name(int mode) {
  switch (mode) {
    case 0: return "host";
    case 1: return "device";
    default: return "?";
  }
}

}  // namespace cublasspy

#include "trace/trace_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cublasspy_version.h"

namespace cublasspy {
namespace {

using namespace format;

template <typename T>
std::atomic_ref<T> atom(T& v) { return std::atomic_ref<T>(v); }

// Hands out copies 1..copies-1 of a per-thread table (launch counts, call counters) once each,
// to the first threads that ask, counting in `taken` (compare-and-swap); 0, the copy every later
// thread shares, when none is left. A copy is never taken back: a thread's exit is not seen, and
// its counts must stay.
uint32_t take_private_copy(uint32_t& taken, uint32_t copies) {
  uint32_t n = atom(taken).load(std::memory_order_relaxed);
  while (n + 1 < copies) {
    if (atom(taken).compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) return n + 1;
  }
  return 0;
}

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

struct Layout {
  uint64_t process_offset, functions_offset, counters_offset, unchanged_offset, first_failure_offset, failure_sites_offset,
      ring_offset, launch_offset, kernels_offset, launch_counts_offset, side_offset, file_bytes;
};

constexpr uint64_t kLaunchCountBytes = uint64_t{kLaunchCountTables} * (kKernelTableEntries + 1) * sizeof(uint64_t);

Layout layout_for(uint32_t function_count, uint64_t capacity, uint64_t launch_capacity,
                  uint64_t side_bytes) {
  Layout l{};
  l.process_offset = kHeaderBytes;
  l.functions_offset = l.process_offset + kProcessSectionBytes;
  l.counters_offset = round_up(l.functions_offset + sizeof(FunctionEntry) * function_count, 64);
  l.unchanged_offset =
      round_up(l.counters_offset + sizeof(FunctionCounters) * function_count * kCounterStripes, 64);
  l.first_failure_offset =
      round_up(l.unchanged_offset + sizeof(uint64_t) * function_count * kCounterStripes, kRecordBytes);
  l.failure_sites_offset = l.first_failure_offset + kRecordBytes;
  l.ring_offset = round_up(l.failure_sites_offset + sizeof(FailureSite) * kFailureSites, kRecordBytes);
  uint64_t end = l.ring_offset + capacity * kRecordBytes;
  if (launch_capacity != 0) {
    l.launch_offset = end;
    l.kernels_offset = round_up(l.launch_offset + launch_capacity * sizeof(LaunchEntry), 64);
    l.launch_counts_offset = l.kernels_offset + uint64_t{kKernelTableEntries} * sizeof(KernelEntry);
    end = l.launch_counts_offset + kLaunchCountBytes;
  }
  l.side_offset = round_up(end, 8);
  l.file_bytes = round_up(l.side_offset + side_bytes, 4096);
  return l;
}

// Creates `path` exclusively without following links; if it exists, tries path.1, path.2, ...
int create_exclusive(std::string& path, int& err) {
  std::string base = path;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = attempt == 0 ? base : base + "." + std::to_string(attempt);
    int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      path = candidate;
      return fd;
    }
    err = errno;
    if (err != EEXIST) return -1;
  }
  return -1;
}


// Fills the fresh file with zeros through write(2), 256 KiB at a time, rather than leaving
// its pages to the mapping's faults: the page cache then holds the file in large folios, which
// a reader copies about twice as fast (docs/BENCHMARKS.md, reader), and which the shim maps in
// fewer steps. A failure costs nothing: the blocks are reserved, and pages never written read
// as zeros.
void write_zeros(int fd, uint64_t bytes) {
  static char kZeros[1 << 18];  // only read; not const, which would put 256 KiB in the .so
  for (uint64_t at = 0; at < bytes;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof kZeros, bytes - at));
    const ssize_t written = ::pwrite(fd, kZeros, n, static_cast<off_t>(at));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    at += static_cast<uint64_t>(written);
  }
}

// Maps a file of `bytes` at `path`, reserving its blocks. Returns nullptr and sets `why`.
void* map_file(std::string& path, uint64_t bytes, std::string& why) {
  // Past the file-size limit (ulimit -f), reserving the blocks would send SIGXFSZ, whose default
  // action kills the host program: check first and never touch the file.
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < bytes) {
    why = "cannot create " + path + ": the trace needs " + std::to_string(bytes) +
          " bytes and the file-size limit (ulimit -f) is " + std::to_string(limit.rlim_cur);
    return nullptr;
  }
  int err = 0;
  int fd = create_exclusive(path, err);
  if (fd < 0) {
    why = "cannot create " + path + ": " + std::strerror(err);
    return nullptr;
  }
  // posix_fallocate makes a full disk fail now, with a message, instead of a SIGBUS in the
  // middle of the host's computation when a page is first touched.
  int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (rc != 0) {
    why = "cannot reserve " + std::to_string(bytes) + " bytes for " + path + ": " + std::strerror(rc);
    ::close(fd);
    ::unlink(path.c_str());
    return nullptr;
  }
  write_zeros(fd, bytes);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int map_err = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    why = "cannot map " + path + ": " + std::strerror(map_err);
    ::unlink(path.c_str());
    return nullptr;
  }
#ifdef MADV_POPULATE_WRITE
  // Take the first write fault of every page now, in one request, rather than one fault per
  // four calls in the host's hot path (each is a file-system transaction on a fresh file).
  ::madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
  return p;
}

}  // namespace

std::string fallback_trace_path(const std::string& path) {
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const char* tmp = getenv("TMPDIR");
  std::string tmpdir = tmp && *tmp ? tmp : "/tmp";
  if (dir == tmpdir) return "";
  return tmpdir + "/" + base;
}

OpenResult TraceWriter::open(const std::string& requested, uint64_t capacity,
                             const FunctionEntry* functions, uint32_t function_count,
                             const std::string& process_section, uint64_t side_bytes,
                             uint64_t launch_capacity) {
  OpenResult result;
  side_bytes = side_bytes / 8 * 8;
  Layout l = layout_for(function_count, capacity, launch_capacity, side_bytes);
  std::string path = requested;
  std::string why;
  void* base = map_file(path, l.file_bytes, why);
  if (base == nullptr) {
    // The user asked for a place we cannot write: keep the record elsewhere rather than lose it.
    std::string fallback = fallback_trace_path(requested);
    if (!fallback.empty()) {
      path = fallback;
      std::string why2;
      base = map_file(path, l.file_bytes, why2);
      if (base != nullptr) {
        result.warning = why + "; writing the trace to " + path + " instead";
      } else {
        why += "; " + why2;
      }
    }
  }
  if (base == nullptr) {
    base = ::mmap(nullptr, l.file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      result.warning = why + "; no memory for an in-memory record either: not recording";
      return result;
    }
    result.warning = why + "; recording in memory only (no trace file)";
    path.clear();
  } else {
    result.file_backed = true;
  }
  file_backed_ = result.file_backed;
  detach_state_.store(kAttached);
  detach_unreported_.store(false);

  auto* bytes = static_cast<char*>(base);
  header_ = reinterpret_cast<FileHeader*>(bytes);
  process_ = bytes + l.process_offset;
  counters_ = reinterpret_cast<FunctionCounters*>(bytes + l.counters_offset);
  unchanged_ = reinterpret_cast<uint64_t*>(bytes + l.unchanged_offset);
  function_count_ = function_count;
  first_failure_ = reinterpret_cast<RecordSlot*>(bytes + l.first_failure_offset);
  failure_sites_.attach(reinterpret_cast<FailureSite*>(bytes + l.failure_sites_offset), kFailureSites,
                        &reinterpret_cast<FileHeader*>(bytes)->failures_unsited);
  ring_ = reinterpret_cast<RecordSlot*>(bytes + l.ring_offset);
  file_base_ = bytes;
  capacity_ = capacity;
  index_mask_ = (capacity & (capacity - 1)) == 0 ? capacity - 1 : 0;
  block_ = claim_block_for(capacity);
  lag_ = claim_lag_for(capacity);
  ++generation_;
  atom(stripes_taken_).store(0, std::memory_order_relaxed);
  mapped_bytes_ = l.file_bytes;

  // The file is fresh (zeroed); fill the parts a reader needs before the header says complete.
  size_t process_bytes = std::min<size_t>(process_section.size(), kProcessSectionBytes - 2);
  std::memcpy(process_, process_section.data(), process_bytes);
  std::memcpy(bytes + l.functions_offset, functions, sizeof(FunctionEntry) * function_count);

  FileHeader& h = *header_;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.endian_mark = kEndianMark;
  h.format_version = kFormatVersion;
  h.header_bytes = kHeaderBytes;
  h.record_bytes = kRecordBytes;
  h.word_bytes = sizeof(void*);
  h.function_count = function_count;
  h.process_offset = l.process_offset;
  h.process_bytes = kProcessSectionBytes;
  h.process_used = process_bytes;
  h.functions_offset = l.functions_offset;
  h.counters_offset = l.counters_offset;
  h.counter_stripes = kCounterStripes;
  h.unchanged_offset = l.unchanged_offset;
  h.claim_block = block_;
  h.claim_lag = lag_;
  h.first_failure_offset = l.first_failure_offset;
  h.failure_sites_offset = l.failure_sites_offset;
  h.failure_site_capacity = kFailureSites;
  h.failure_site_bytes = sizeof(FailureSite);
  h.ring_offset = l.ring_offset;
  h.ring_capacity = capacity;
  h.file_bytes = l.file_bytes;
  if (launch_capacity != 0) {
    h.launch_offset = l.launch_offset;
    h.launch_capacity = launch_capacity;
    h.kernels_offset = l.kernels_offset;
    h.kernel_capacity = kKernelTableEntries;
    h.launch_entry_bytes = sizeof(LaunchEntry);
    h.launch_counts_offset = l.launch_counts_offset;
    h.launch_count_tables = kLaunchCountTables;
    h.launch_block = claim_block_for(launch_capacity);
    h.launch_lag = claim_lag_for(launch_capacity);
  }
  launches_ = launch_capacity != 0 ? reinterpret_cast<LaunchEntry*>(bytes + l.launch_offset) : nullptr;
  kernels_ = launch_capacity != 0 ? reinterpret_cast<KernelEntry*>(bytes + l.kernels_offset) : nullptr;
  launch_capacity_ = launch_capacity;
  launch_mask_ = (launch_capacity & (launch_capacity - 1)) == 0 && launch_capacity != 0 ? launch_capacity - 1 : 0;
  launch_block_ = h.launch_block;
  launch_lag_ = h.launch_lag;
  launch_counts_ = launch_capacity != 0 ? reinterpret_cast<uint64_t*>(bytes + l.launch_counts_offset) : nullptr;
  h.side_offset = side_bytes != 0 ? l.side_offset : 0;
  h.side_bytes = side_bytes;
  h.exit_status = -1;
  h.driver_version = -1;
  h.runtime_version = -1;
  static_assert(sizeof CUBLASSPY_VERSION <= sizeof h.writer_version);
  std::memcpy(h.writer_version, CUBLASSPY_VERSION, sizeof CUBLASSPY_VERSION);
  atom(h.header_complete).store(1, std::memory_order_release);

  result.ok = true;
  result.path = path;
  return result;
}

void TraceWriter::refill_claim_cursor(ClaimCursor& cursor) {
  // A new block when this one is used up, was taken for an earlier trace, or has fallen more
  // than the lag behind the tickets other threads took meanwhile: records then stay within
  // claim_lag + claim_block slots of their start-time order, the window a reader sorts in.
  // A thread that uses its blocks up gets longer ones, up to claim_block; one that fell behind
  // starts again from a single slot, so a thread that calls rarely leaves few slots unused
  // behind it.
  const bool current = cursor.generation == generation_;
  const bool used_up = current && cursor.next == cursor.base + cursor.size;
  cursor.size = used_up ? std::min(cursor.size * 2, block_) : 1;
  cursor.base = atom(header_->next_ticket).fetch_add(cursor.size, std::memory_order_relaxed);
  cursor.next = cursor.base;
  if (!current) adopt_counters(cursor);
  cursor.generation = generation_;
}

void TraceWriter::note_skipped(uint64_t ticket) {
  // Rare (a call in flight for a whole round of the ring): noted for the reader.
  const uint64_t n = atom(header_->skipped_count).fetch_add(1, std::memory_order_relaxed);
  atom(header_->skipped[n % kSkippedSlots]).store(slot_index(ticket), std::memory_order_relaxed);
}

RecordSlot* TraceWriter::drop_record(uint64_t* seq_out, RecordSlot* scratch) {
  atom(header_->dropped_records).fetch_add(1, std::memory_order_relaxed);
  *seq_out = atom(header_->next_ticket).fetch_add(1, std::memory_order_relaxed) + 1;  // a ticket no slot gets
  return scratch;
}

// The usual case is a straight line of a few instructions: the block's next ticket, a free
// slot, one compare-and-swap. Everything else is out of line (refill_claim_cursor,
// note_skipped, drop_record): every recorded call runs this, and in a program that makes a few
// short calls per operation the shim's cost follows the instructions it runs.
RecordSlot* TraceWriter::claim_slow(ClaimCursor& cursor, uint64_t* seq_out, RecordSlot* scratch) {
  for (uint64_t attempt = 0; attempt < capacity_; ++attempt) {
    // Reading next_ticket costs a cache miss only after another thread took a block.
    if (cursor.generation != generation_ || cursor.next == cursor.base + cursor.size ||
        atom(header_->next_ticket).load(std::memory_order_relaxed) - cursor.base > lag_) [[unlikely]] {
      refill_claim_cursor(cursor);
    }
    const uint64_t ticket = cursor.next++;
    RecordSlot* slot = &ring_[slot_index(ticket)];
    uint64_t word = atom(slot->call.word).load(std::memory_order_relaxed);
    // A record with a later ticket (a thread came round the ring while this block waited) is
    // newer than this call would be, and stays.
    if (word_seq(word) > ticket) [[unlikely]] continue;
    // A slot whose call is still in flight is skipped, never overwritten: the call a process
    // was stuck in when it died must survive however many calls other threads made meanwhile.
    const RecordState state = word_state(word);
    if (state == RecordState::kInFlight || state == RecordState::kWriting) [[unlikely]] {
      note_skipped(ticket);
      continue;
    }
    const uint64_t seq = ticket + 1;
    if (atom(slot->call.word).compare_exchange_strong(word, pack_word(seq, RecordState::kWriting),
                                                      std::memory_order_acquire)) [[likely]] {
      std::atomic_thread_fence(std::memory_order_release);
      *seq_out = seq;
      if (ticket + detail::kPrefetchAhead < cursor.base + cursor.size) detail::prefetch_for_writing(&ring_[slot_index(ticket + detail::kPrefetchAhead)]);
      return slot;
    }
  }
  return drop_record(seq_out, scratch);
}

void TraceWriter::adopt_launch_cursor(LaunchCursor& cursor) {
  const uint32_t table = take_private_copy(header_->launch_tables_taken, kLaunchCountTables);
  cursor.counts = launch_counts_ + uint64_t{table} * (kKernelTableEntries + 1);
  cursor.shared = table == 0;
  cursor.base = cursor.next = 0;
  cursor.size = 0;
  cursor.generation = generation_;
}

void TraceWriter::refill_launch_cursor(LaunchCursor& cursor) {
  if (cursor.generation != generation_) adopt_launch_cursor(cursor);
  FileHeader& h = *header_;
  // claim()'s rule: a new block when this one is used up or has fallen more than the lag behind
  // the tickets other threads took, so entries stay within launch_lag + launch_block of their
  // launch order (the window the reader sorts in), and a block in use is never one other
  // threads could come round the ring to: they would have to take the other three quarters of
  // the ring's tickets between this check and the stores claim_launch makes.
  const bool used_up = cursor.next == cursor.base + cursor.size;
  if (used_up || atom(h.launch_next).load(std::memory_order_relaxed) - cursor.base > launch_lag_) {
    cursor.size = used_up && cursor.size != 0 ? std::min(cursor.size * 2, launch_block_) : 1;
    cursor.base = atom(h.launch_next).fetch_add(cursor.size, std::memory_order_relaxed);
    cursor.next = cursor.base;
  }
}

void TraceWriter::complete_launch(LaunchEntry* e, uint64_t ticket) {
  atom(e->word).store(pack_word(ticket + 1, RecordState::kCompleted), std::memory_order_release);
}

void TraceWriter::note_launch_error(uint64_t ticket) {
  uint64_t none = 0;
  atom(header_->first_launch_error).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed);
}

void TraceWriter::note_stale_replay(uint64_t ticket, uint64_t gemm_seq, uint64_t address, uint32_t role) {
  if (header_ == nullptr) return;
  uint64_t none = 0;
  if (atom(header_->stale_replay_launch).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed)) {
    header_->stale_replay_gemm = gemm_seq;
    header_->stale_replay_address = address;
    header_->stale_replay_role = role;
  }
  uint32_t n = atom(header_->stale_replays).load(std::memory_order_relaxed);
  while (n != UINT32_MAX &&
         !atom(header_->stale_replays).compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) {
  }
}

uint64_t* TraceWriter::claim_first_failed_launch(uint64_t ticket) {
  if (header_ == nullptr) return nullptr;
  uint64_t none = 0;
  if (!atom(header_->first_failed_launch).compare_exchange_strong(none, ticket + 1, std::memory_order_relaxed)) {
    return nullptr;
  }
  return &header_->first_failed_launch_side;
}

uint16_t TraceWriter::kernel_index(uint64_t function, uint16_t function_id, NameKernel name, void* context) {
  if (kernels_ == nullptr || function == 0) return kNoKernel;
  // Open addressing on the function's address, lock-free: an entry is claimed once with a
  // compare-and-swap of its key and never moves or goes away, so a lookup is a probe or two.
  uint64_t i = (function >> 4) * 0x9E3779B97F4A7C15ull >> 54;  // 10 bits: kKernelTableEntries
  for (uint32_t probe = 0; probe < kKernelTableEntries; ++probe, i = (i + 1) % kKernelTableEntries) {
    KernelEntry& e = kernels_[i];
    uint64_t key = atom(e.function).load(std::memory_order_acquire);
    if (key == 0 && atom(e.function).compare_exchange_strong(key, function, std::memory_order_acq_rel)) {
      e.function_id = function_id;
      name(context, e.name, sizeof e.name);  // once per function, by the thread that claimed it
      e.name[sizeof e.name - 1] = '\0';
      atom(e.named).store(1, std::memory_order_release);
      key = function;
    }
    if (key == function) return static_cast<uint16_t>(i);  // counted by count_launch
  }
  atom(header_->kernels_unnamed).fetch_add(1, std::memory_order_relaxed);
  return kNoKernel;
}

bool TraceWriter::attach(uint64_t& head, uint64_t seq, uint32_t kind, const void* data, uint32_t length) {
  if (header_ == nullptr) return false;
  FileHeader& h = *header_;
  if (kind == 0 || length > kMaxSideEntryBytes || h.side_bytes == 0) return false;
  const uint64_t need = round_up(sizeof(SideEntry) + length, 8);
  // Reserve without ever passing the end: a compare-and-swap loop, lock-free (a thread that
  // loses the race retries with the new value; one always wins).
  uint64_t used = atom(h.side_used).load(std::memory_order_relaxed);
  do {
    if (used + need > h.side_bytes) {
      atom(h.side_dropped).fetch_add(1, std::memory_order_relaxed);
      atom(h.side_dropped_bytes).fetch_add(need, std::memory_order_relaxed);
      return false;
    }
  } while (!atom(h.side_used).compare_exchange_weak(used, used + need, std::memory_order_relaxed));
  const uint64_t at = h.side_offset + used;
  auto* entry = reinterpret_cast<SideEntry*>(file_base_ + at);
  entry->length = length;
  entry->seq = seq;
  entry->prev = atom(head).load(std::memory_order_relaxed);
  std::memcpy(file_base_ + at + sizeof(SideEntry), data, length);
  // The kind last: a reader that sees it sees the rest (the entry's whole life is this store).
  atom(entry->kind).store(kind, std::memory_order_release);
  atom(h.side_entries).fetch_add(1, std::memory_order_relaxed);
  // The record names it last, so a record never names an entry that is not all there.
  atom(head).store(at, std::memory_order_release);
  return true;
}

void TraceWriter::adopt_counters(ClaimCursor& cursor) {
  const uint32_t stripe = take_private_copy(stripes_taken_, kCounterStripes);
  cursor.counters = counters_ + uint64_t{stripe} * function_count_;
  cursor.unchanged = unchanged_ + uint64_t{stripe} * function_count_;
  cursor.counters_shared = stripe == 0;
}

uint64_t TraceWriter::calls_made() const {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < uint64_t{kCounterStripes} * function_count_; ++i) {
    sum += atom(counters_[i].calls).load(std::memory_order_relaxed);
    sum += atom(unchanged_[i]).load(std::memory_order_relaxed);
  }
  return sum;
}

uint64_t TraceWriter::last_seq_of(const ClaimCursor& cursor) const {
  // The cursor's next ticket is one past the last it handed out, which is that call's seq.
  if (cursor.generation == generation_ && cursor.next > cursor.base) return cursor.next;
  return atom(header_->next_ticket).load(std::memory_order_relaxed);
}

void TraceWriter::note_failure(RecordSlot* slot, uint64_t seq, ClaimCursor& cursor) {
  bump(cursor.counters[slot->call.function_id].failed, cursor.counters_shared);
  // The first failure is copied aside so that wrap-around cannot take it. The flag decides
  // which call that is; it sits on its own cache line, so failing calls do not read the
  // header's line, which the other threads' claims keep moving between cores.
  if (!first_failure_taken_.load(std::memory_order_relaxed) &&
      !first_failure_taken_.exchange(true, std::memory_order_relaxed)) {
    atom(header_->first_failure_seq).store(seq, std::memory_order_relaxed);
    std::memcpy(first_failure_, slot, sizeof(RecordSlot));
    atom(first_failure_->call.word).store(pack_word(seq, RecordState::kCompleted),
                                          std::memory_order_release);
  }
}

void TraceWriter::append_process_entry(const std::string& key, const std::string& value) {
  append_process_entry(key.c_str(), value.c_str());
}

void TraceWriter::append_process_entry(const char* key, const char* value) {
  // One thread at a time: the callers in interpose/post_call.cpp (library refresh, machine
  // evidence) hold its process-section flag, taken by
  // a compare-and-swap on an atomic flag, and a thread that finds the flag taken
  // skips the refresh instead of waiting (no lock). Readers see the entry once process_used,
  // stored last with release, covers it.
  if (header_ == nullptr) return;
  const size_t key_size = std::strlen(key), value_size = std::strlen(value);
  uint64_t used = header_->process_used;
  uint64_t need = key_size + value_size + 2;
  if (used + need + 2 > kProcessSectionBytes) return;
  std::memcpy(process_ + used, key, key_size + 1);
  std::memcpy(process_ + used + key_size + 1, value, value_size + 1);
  atom(header_->process_used).store(used + need, std::memory_order_release);
}

void TraceWriter::mark_signaled(int sig) {
  if (header_ == nullptr) return;
  header_->end_signal = sig;
  atom(header_->end_state).store(static_cast<uint32_t>(EndState::kSignaled));
}

void TraceWriter::unmark_signaled() {
  if (header_ == nullptr) return;
  atom(header_->end_state).store(static_cast<uint32_t>(EndState::kRunning));
  header_->end_signal = 0;
}

void TraceWriter::mark_exited(int status) {
  if (header_ == nullptr) return;
  // The status before the state, so that a reader that sees kExited sees its status; an exit
  // that finds the process already marked signaled (the program's handler called exit after a
  // crash) leaves both alone.
  if (atom(header_->end_state).load() != static_cast<uint32_t>(EndState::kRunning)) return;
  atom(header_->exit_status).store(status < 0 ? -1 : status & 0xff);
  uint32_t running = static_cast<uint32_t>(EndState::kRunning);
  atom(header_->end_state).compare_exchange_strong(running, static_cast<uint32_t>(EndState::kExited));
}

bool TraceWriter::mark_executing() {
  if (header_ == nullptr) return false;
  uint32_t running = static_cast<uint32_t>(EndState::kRunning);
  return atom(header_->end_state).compare_exchange_strong(running, static_cast<uint32_t>(EndState::kExecuted));
}

void TraceWriter::unmark_executing() {
  if (header_ == nullptr) return;
  // A fatal signal during the failed exec has written kSignaled since: that stays.
  uint32_t executing = static_cast<uint32_t>(EndState::kExecuted);
  atom(header_->end_state).compare_exchange_strong(executing, static_cast<uint32_t>(EndState::kRunning));
}

bool TraceWriter::detach_on_fault(const void* address) {
  auto* base = reinterpret_cast<char*>(header_);
  auto* at = static_cast<const char*>(address);
  if (base == nullptr || !file_backed_ || at < base || at >= base + mapped_bytes_) return false;
  int state = kAttached;
  if (detach_state_.compare_exchange_strong(state, kDetaching)) {
    // MAP_FIXED swaps the pages in one step: other threads never see a hole. The recording
    // restarts from zeroed memory that nothing reads; the host program goes on.
    void* p = ::mmap(base, mapped_bytes_, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    bool ok = p == base;
    detach_state_.store(ok ? kDetached : kDetachFailed);
    if (ok) detach_unreported_.store(true);
    return ok;
  }
  // Another thread is replacing the mapping (the store faults again until it is done) or has
  // replaced it; a fault after a failed replacement is fatal like any other.
  return state != kDetachFailed;
}

void TraceWriter::abandon_after_fork() {
  if (header_ != nullptr) ::munmap(header_, mapped_bytes_);
  header_ = nullptr;
  ring_ = first_failure_ = nullptr;
  failure_sites_.attach(nullptr, 0, nullptr);
  file_base_ = nullptr;
  counters_ = nullptr;
  unchanged_ = nullptr;
  launches_ = nullptr;
  kernels_ = nullptr;
  launch_counts_ = nullptr;
  process_ = nullptr;
  file_backed_ = false;
  ++generation_;
  atom(stripes_taken_).store(0, std::memory_order_relaxed);
  detach_state_.store(kAttached);
  detach_unreported_.store(false);
  first_failure_taken_.store(false);
}

}  // namespace cublasspy

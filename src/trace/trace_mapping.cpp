#include "trace/trace_mapping.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cublasspy {
namespace {

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


// Fills a range of the fresh file with zeros through write(2), 256 KiB at a time, rather than
// leaving its pages to the mapping's faults: the page cache then holds the file in large folios,
// which a reader copies about twice as fast (docs/BENCHMARKS.md, reader), and which the shim maps
// in fewer steps. A failure costs nothing: the blocks are reserved, and pages never written read
// as zeros. Only at creation: a range reserved later may already hold records.
void write_zeros(int fd, uint64_t from, uint64_t to) {
  static char kZeros[1 << 18];  // only read; not const, which would put 256 KiB in the .so
  for (uint64_t at = from; at < to;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof kZeros, to - at));
    const ssize_t written = ::pwrite(fd, kZeros, n, static_cast<off_t>(at));
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;
    at += static_cast<uint64_t>(written);
  }
}

// Takes the first write fault of every page of [from, to) of the mapping now, in one request,
// rather than one fault per four calls in the host's hot path (each is a file-system
// transaction on a fresh file).
void populate(char* base, uint64_t from, uint64_t to) {
#ifdef MADV_POPULATE_WRITE
  if (to > from) ::madvise(base + from, to - from, MADV_POPULATE_WRITE);
#else
  (void)base, (void)from, (void)to;
#endif
}

// [from, to) widened to whole pages, within the file.
FileRange page_aligned(uint64_t from, uint64_t to, uint64_t page, uint64_t file_bytes) {
  return {from / page * page, std::min(file_bytes, (to + page - 1) / page * page)};
}

// Reserves the blocks of [from, to) of the file `fd`: fallocate(2) itself (a system call,
// async-signal-safe), so that a file system without it says so instead of being written through.
// The file's size stays: one truncated under the process is not grown back (its next store
// faults, and the mapping is detached as before).
int reserve_blocks(int fd, uint64_t from, uint64_t to) {
  if (to <= from) return 0;
  const int rc = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(from), static_cast<off_t>(to - from));
  return rc == 0 ? 0 : errno;
}

struct MappedFile {
  void* base = nullptr;
  struct stat identity {};
  bool all_reserved = false;  // no fallocate here: every block reserved
};

// Maps a file of `bytes` at `path`, with the blocks of the `fixed` ranges (page-aligned)
// reserved and the rest a hole. Returns a null base and sets `why` on failure.
MappedFile map_file(std::string& path, uint64_t bytes, const FileRange* fixed, int fixed_count, uint64_t page,
                    std::string& why) {
  MappedFile out;
  // Past the file-size limit (ulimit -f), sizing the file would send SIGXFSZ, whose default
  // action kills the host program: check first and never touch the file.
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < bytes) {
    why = "cannot create " + path + ": the trace needs " + std::to_string(bytes) +
          " bytes and the file-size limit (ulimit -f) is " + std::to_string(limit.rlim_cur);
    return out;
  }
  int err = 0;
  int fd = create_exclusive(path, err);
  if (fd < 0) {
    why = "cannot create " + path + ": " + std::strerror(err);
    return out;
  }
  auto give_up = [&](const std::string& what) {
    why = what;
    ::close(fd);
    ::unlink(path.c_str());
    return MappedFile{};
  };
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    return give_up("cannot size " + path + ": " + std::strerror(errno));
  }
  // The fixed parts' blocks are reserved now, so that a full disk fails here, with a message,
  // instead of a SIGBUS in the middle of the host's computation when a page is first touched.
  int rc = 0;
  for (int i = 0; i < fixed_count && rc == 0; ++i) {
    const FileRange r = page_aligned(fixed[i].begin, fixed[i].end, page, bytes);
    rc = reserve_blocks(fd, r.begin, r.end);
  }
  if (rc == EOPNOTSUPP || rc == ENOSYS) {
    // A file system without fallocate: every block now, as posix_fallocate can (by writing).
    rc = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes));
    out.all_reserved = rc == 0;
  }
  if (rc != 0) return give_up("cannot reserve the blocks of " + path + ": " + std::strerror(rc));
  for (int i = 0; i < fixed_count && !out.all_reserved; ++i) write_zeros(fd, fixed[i].begin, fixed[i].end);
  if (out.all_reserved) write_zeros(fd, 0, bytes);
  if (::fstat(fd, &out.identity) != 0) out.identity = {};
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int map_err = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    why = "cannot map " + path + ": " + std::strerror(map_err);
    ::unlink(path.c_str());
    return MappedFile{};
  }
  char* base = static_cast<char*>(p);
  if (out.all_reserved) {
    populate(base, 0, bytes);
  } else {
    for (int i = 0; i < fixed_count; ++i) {
      const FileRange r = page_aligned(fixed[i].begin, fixed[i].end, page, bytes);
      populate(base, r.begin, r.end);
    }
  }
  out.base = p;
  return out;
}

// `path` from the root: reserve() and remove_file() name the file again later, after the
// program may have changed its working directory (a relative path would then name another file,
// or none, and the ring would stop growing).
std::string from_root(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[4096];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
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

char* TraceMapping::create(const std::string& requested, uint64_t bytes, const FileRange* fixed, int fixed_count,
                           OpenResult& result) {
  const long page = ::sysconf(_SC_PAGESIZE);
  page_bytes_ = page > 0 ? static_cast<uint64_t>(page) : 4096;
  std::string path = requested;
  std::string why;
  MappedFile file = map_file(path, bytes, fixed, fixed_count, page_bytes_, why);
  void* base = file.base;
  if (base == nullptr) {
    // The user asked for a place we cannot write: keep the record elsewhere rather than lose it.
    std::string fallback = fallback_trace_path(requested);
    if (!fallback.empty()) {
      path = fallback;
      std::string why2;
      file = map_file(path, bytes, fixed, fixed_count, page_bytes_, why2);
      base = file.base;
      if (base != nullptr) {
        result.warning = why + "; writing the trace to " + path + " instead";
      } else {
        why += "; " + why2;
      }
    }
  }
  if (base == nullptr) {
    base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
      result.warning = why + "; no memory for an in-memory record either: not recording";
      return nullptr;
    }
    result.warning = why + "; recording in memory only (no trace file)";
    path.clear();
  } else {
    result.file_backed = true;
  }
  result.path = path;
  base_ = static_cast<char*>(base);
  bytes_ = bytes;
  file_backed_ = result.file_backed;
  file_device_ = result.file_backed ? static_cast<uint64_t>(file.identity.st_dev) : 0;
  file_inode_ = result.file_backed ? static_cast<uint64_t>(file.identity.st_ino) : 0;
  all_reserved_ = file.all_reserved;
  path_ = result.file_backed ? from_root(path) : std::string();
  detach_state_.store(kAttached);
  detach_unreported_.store(false);
  return base_;
}

void TraceMapping::abandon() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
  base_ = nullptr;
  file_backed_ = false;
  detach_state_.store(kAttached);
  detach_unreported_.store(false);
}

bool TraceMapping::reserve(GrowingRegion& region, uint64_t end) {
  uint64_t have = region.reserved.load(std::memory_order_acquire);
  if (end <= have) return true;
  if (base_ == nullptr) return false;
  if (!file_backed_ || all_reserved_ || detach_state_.load() != kAttached) {
    // Memory (from the start, or since a detach): nothing to reserve.
    region.reserved.store(region.bytes, std::memory_order_release);
    return true;
  }
  if (region.stuck.load(std::memory_order_relaxed)) return false;
  const uint64_t want = std::min(region.bytes, (end + kReserveStep - 1) / kReserveStep * kReserveStep);
  const FileRange r = page_aligned(region.offset + have, region.offset + want, page_bytes_, bytes_);
  bool ok = false;
  const int fd = ::open(path_.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    struct stat st;
    // Still the file this mapping was made from (not renamed away, nor replaced).
    ok = ::fstat(fd, &st) == 0 && static_cast<uint64_t>(st.st_dev) == file_device_ &&
         static_cast<uint64_t>(st.st_ino) == file_inode_ && reserve_blocks(fd, r.begin, r.end) == 0;
    // The step's pages into the page cache before the mapping takes them, in large folios, as
    // write_zeros gives the fixed parts: a reader then copies them as fast. Not write_zeros
    // itself: a racing reservation of the same step may have made it writable already, and a
    // record written there since would be zeroed. readahead leaves a cached page as it is.
    if (ok) ::readahead(fd, static_cast<off_t>(r.begin), r.end - r.begin);
    ::close(fd);
  }
  if (!ok) {
    region.stuck.store(true, std::memory_order_relaxed);
    return false;
  }
  populate(base_, r.begin, r.end);
  // Every byte below `want` is reserved now (by this call, or before it: `have` was read
  // first); another thread may have gone further meanwhile.
  while (have < want && !region.reserved.compare_exchange_weak(have, want, std::memory_order_acq_rel)) {
  }
  return true;
}

bool TraceMapping::remove_file() {
  const std::string& path = path_;
  if (base_ == nullptr || !file_backed_ || file_inode_ == 0 || path.empty()) return false;
  if (detach_state_.load() != kAttached) return false;  // truncated under the process: not ours to judge
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (static_cast<uint64_t>(st.st_dev) != file_device_ || static_cast<uint64_t>(st.st_ino) != file_inode_) return false;
  return ::unlink(path.c_str()) == 0;
}

bool TraceMapping::detach_on_fault(const void* address) {
  char* base = base_;
  auto* at = static_cast<const char*>(address);
  if (base == nullptr || !file_backed_ || at < base || at >= base + bytes_) return false;
  int state = kAttached;
  if (detach_state_.compare_exchange_strong(state, kDetaching)) {
    // MAP_FIXED swaps the pages in one step: other threads never see a hole. The recording
    // restarts from zeroed memory that nothing reads; the host program goes on.
    void* p = ::mmap(base, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    bool ok = p == base;
    detach_state_.store(ok ? kDetached : kDetachFailed);
    if (ok) detach_unreported_.store(true);
    return ok;
  }
  // Another thread is replacing the mapping (the store faults again until it is done) or has
  // replaced it; a fault after a failed replacement is fatal like any other.
  return state != kDetachFailed;
}

}  // namespace cublasspy

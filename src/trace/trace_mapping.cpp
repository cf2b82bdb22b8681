#include "trace/trace_mapping.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
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

// Maps a file of `bytes` at `path`, reserving its blocks. Returns nullptr and sets `why`; else
// the file's identity goes in `identity`.
void* map_file(std::string& path, uint64_t bytes, std::string& why, struct stat& identity) {
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
  if (::fstat(fd, &identity) != 0) identity = {};
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

char* TraceMapping::create(const std::string& requested, uint64_t bytes, OpenResult& result) {
  std::string path = requested;
  std::string why;
  struct stat identity {};
  void* base = map_file(path, bytes, why, identity);
  if (base == nullptr) {
    // The user asked for a place we cannot write: keep the record elsewhere rather than lose it.
    std::string fallback = fallback_trace_path(requested);
    if (!fallback.empty()) {
      path = fallback;
      std::string why2;
      base = map_file(path, bytes, why2, identity);
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
  file_device_ = result.file_backed ? static_cast<uint64_t>(identity.st_dev) : 0;
  file_inode_ = result.file_backed ? static_cast<uint64_t>(identity.st_ino) : 0;
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

bool TraceMapping::remove_file(const std::string& path) {
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

#include "cli/launcher_wait.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "trace/trace_format.h"
#include "trace/trace_reader.h"

namespace cublasspy::tools {

std::string record_launcher_wait(const std::string& path, pid_t command_pid, int wait_status) {
  // The reader validates the file and says which process wrote it; traces of older formats
  // have no place for the status and are left as they are.
  std::string error;
  std::optional<TraceFile> trace = TraceFile::open(path, error);
  if (!trace) return error;
  if (trace->header().format_version < 5) {
    return fmt::format("{:?}: format version {} has no place for the exit status", path,
                       trace->header().format_version);
  }
  const bool own = trace->process().get("pid") == std::to_string(command_pid);
  struct {
    uint32_t wait;
    int32_t status;
    uint64_t pid;
  } stamp{static_cast<uint32_t>(own ? format::LauncherWait::kOwn : format::LauncherWait::kCommand), wait_status,
          static_cast<uint64_t>(command_pid)};
  static_assert(sizeof stamp == offsetof(format::FileHeader, stale_replay_launch) - offsetof(format::FileHeader, launcher_wait));
  // Only these bytes: a descendant still running writes the rest of the header, never them.
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("{:?}: cannot record the exit status: {}", path, std::strerror(errno));
  ssize_t n = ::pwrite(fd, &stamp, sizeof stamp, offsetof(format::FileHeader, launcher_wait));
  int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof stamp)) {
    return fmt::format("{:?}: cannot record the exit status: {}", path, n < 0 ? std::strerror(err) : "short write");
  }
  return "";
}

}  // namespace cublasspy::tools

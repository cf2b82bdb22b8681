#include "shim_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cxxabi.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <type_traits>

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

namespace cublasspy {
namespace {

// Hooks run until the process is gone: from the program's atexit handlers and static
// destructors, and from the ELF destructors that run after every static destructor (the
// shim's own included). So nothing here is ever destroyed: the logger and its sink are leaked
// on purpose, the lock has no destructor, and lines go out with write(2) on a descriptor that
// stays open, never through a stdio stream that exit() flushes and closes.
static_assert(std::is_trivially_destructible_v<std::mutex>);

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// A sink that formats with spdlog and writes each line with one write(2) (a line of a file
// opened for appending lands whole, between other processes' lines).
class DescriptorSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit DescriptorSink(int fd) : fd_(fd) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    write_all(fd_, line.data(), line.size());
  }
  void flush_() override {}

 private:
  const int fd_;
};

constinit std::mutex g_mutex;
spdlog::logger* g_logger = nullptr;       // null: logging off; leaked, never destroyed
std::set<std::string>* g_once = nullptr;  // leaked on purpose: used until the very end
constinit int g_fd = STDERR_FILENO;       // the logger's descriptor; -1: CUBLASSPY_LOG=off
constinit bool g_exception_noted = false;

}  // namespace

void log_configure(const std::string& destination) {
  if (destination == "off") {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_fd = -1;
    return;
  }
  try {
    int fd = STDERR_FILENO;
    bool unopened = false;
    if (destination != "stderr") {
      // Appended to, created if need be; it follows symbolic links (a log the user names).
      fd = ::open(destination.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
      if (fd < 0) {
        fd = STDERR_FILENO;
        unopened = true;
      }
    }
    auto* logger = new spdlog::logger("cublasspy", std::make_shared<DescriptorSink>(fd));
    logger->set_pattern("cublasspy: %v");
    std::lock_guard<std::mutex> lock(g_mutex);
    g_logger = logger;
    g_fd = fd;
    if (unopened) logger->warn("cannot open CUBLASSPY_LOG file '{}'; logging to stderr", destination);
  } catch (const abi::__forced_unwind&) {
    throw;
  } catch (...) {
    // No logger (no memory for one): warnings are dropped (note_shim_exception's line is not).
    note_shim_exception();
  }
}

void log_warning(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_logger == nullptr) return;
  try {
    g_logger->warn("{}", message);
  } catch (const abi::__forced_unwind&) {
    throw;
  } catch (...) {
    // The line is lost (spdlog could not format it); the program goes on.
  }
}

void log_warning_once(const char* key, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    try {
      if (g_once == nullptr) g_once = new std::set<std::string>;
      if (!g_once->insert(key).second) return;
    } catch (const std::bad_alloc&) {
      return;  // no memory to remember it by: not said at all rather than every time
    }
  }
  log_warning(message);
}

void note_shim_exception() {
  static constexpr char kLine[] =
      "cublasspy: the shim's own work failed (out of memory?); the program's calls go on, "
      "some of them not recorded in full\n";
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_exception_noted || g_fd < 0) return;
  g_exception_noted = true;
  write_all(g_fd, kLine, sizeof kLine - 1);
}

}  // namespace cublasspy

#include "lt_log.h"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>

namespace standin {
namespace {

constexpr int kErrorBit = 1;  // CUBLASLT_LOG_MASK's bit for errors; level 1 and up include it

struct LogSettings {
  bool errors = false;
  std::string file;  // "" : stdout
};

int number(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atoi(text) : 0;
}

// Read once, at the first message (the real library reads them when it starts).
const LogSettings& settings() {
  static const LogSettings s = [] {
    LogSettings out;
    out.errors = number("CUBLASLT_LOG_LEVEL") >= 1 || (number("CUBLASLT_LOG_MASK") & kErrorBit) != 0;
    if (const char* file = std::getenv("CUBLASLT_LOG_FILE"); file != nullptr) {
      const std::string pid = std::to_string(static_cast<long>(getpid()));
      for (const char* p = file; *p != '\0'; ++p) {
        if (p[0] == '%' && p[1] == 'i') {
          out.file += pid;
          ++p;
        } else {
          out.file += *p;
        }
      }
    }
    return out;
  }();
  return s;
}

}  // namespace

void lt_log_error(const char* function, const char* format, ...) {
  const LogSettings& s = settings();
  if (!s.errors) return;
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  char when[32];
  const time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &local);
  static std::mutex lock;
  std::lock_guard<std::mutex> hold(lock);
  FILE* out = s.file.empty() ? stdout : std::fopen(s.file.c_str(), "a");
  if (out == nullptr) return;
  std::fprintf(out, "[%s][cublasLt][%ld][Error][%s] %s\n", when, static_cast<long>(getpid()), function, message);
  if (out == stdout) std::fflush(out);
  else std::fclose(out);
}

}  // namespace standin

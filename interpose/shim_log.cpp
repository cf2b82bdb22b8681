#include "shim_log.h"

#include <mutex>
#include <set>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace cublasspy {
namespace {

std::mutex g_mutex;
std::shared_ptr<spdlog::logger> g_logger;  // null: logging off
std::set<std::string>* g_once = nullptr;   // leaked on purpose: used until the very end

std::shared_ptr<spdlog::logger> make_logger(const std::string& destination) {
  if (destination == "off") return nullptr;
  std::shared_ptr<spdlog::logger> logger;
  if (destination != "stderr") {
    try {
      logger = std::make_shared<spdlog::logger>(
          "cublasspy", std::make_shared<spdlog::sinks::basic_file_sink_mt>(destination));
    } catch (const spdlog::spdlog_ex&) {
      logger = nullptr;  // fall through to stderr, and say so once configured
    }
  }
  if (!logger) {
    logger = std::make_shared<spdlog::logger>(
        "cublasspy", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  logger->set_pattern("cublasspy: %v");
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace

void log_configure(const std::string& destination) {
  auto logger = make_logger(destination);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_logger = logger;
  if (logger && destination != "stderr" && destination != "off" &&
      logger->sinks().size() == 1 &&
      std::dynamic_pointer_cast<spdlog::sinks::stderr_sink_mt>(logger->sinks()[0])) {
    logger->warn("cannot open CUBLASSPY_LOG file '{}'; logging to stderr", destination);
  }
}

void log_warning(const std::string& message) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_logger) g_logger->warn("{}", message);
}

void log_warning_once(const char* key, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_once == nullptr) g_once = new std::set<std::string>;
    if (!g_once->insert(key).second) return;
  }
  log_warning(message);
}

}  // namespace cublasspy

#include "bundle/redaction.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "machine/process_info.h"

namespace cublasspy::tools::bundle {
namespace {

// Shorter values ("1", "true", "none") would redact ordinary words: a credential is longer.
constexpr size_t kShortestSecret = 6;

void replace_all(std::string& text, const std::string& needle) {
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + sizeof kRedacted - 1)) {
    text.replace(at, needle.size(), kRedacted);
  }
}

// The "user:password" parts of the URLs in `value`.
std::vector<std::string> url_credentials(const std::string& value) {
  std::vector<std::string> out;
  for (size_t scheme = value.find("://"); scheme != std::string::npos; scheme = value.find("://", scheme + 3)) {
    const size_t start = scheme + 3;
    const size_t end = value.find_first_of("/?#@ ;,", start);
    if (end != std::string::npos && value[end] == '@') out.push_back(value.substr(start, end - start));
  }
  return out;
}

}  // namespace

Redactor::Redactor(char** environment) {
  for (char** e = environment; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string value = entry.substr(eq + 1);
    if (looks_like_credential_name(std::string_view(entry).substr(0, eq))) add_secret(value);
    for (const std::string& credential : url_credentials(value)) {
      add_secret(credential);
      // The password alone too: a tool may print the user apart from it.
      if (size_t colon = credential.find(':'); colon != std::string::npos) add_secret(credential.substr(colon + 1));
    }
  }
}

Redactor::Redactor(std::vector<std::string> secrets) {
  for (const std::string& s : secrets) add_secret(s);
}

void Redactor::add_secret(const std::string& value) {
  if (value.size() < kShortestSecret) return;
  const std::string dumped = nlohmann::json(value).dump();
  const std::string escaped = dumped.substr(1, dumped.size() - 2);
  for (const std::string& needle : {value, escaped}) {
    if (std::find(needles_.begin(), needles_.end(), needle) == needles_.end()) needles_.push_back(needle);
  }
  // The longest first, so a secret that contains another is replaced whole.
  std::stable_sort(needles_.begin(), needles_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

std::string Redactor::text(std::string text) const {
  for (const std::string& needle : needles_) replace_all(text, needle);
  return without_url_credentials(text);
}

void Redactor::json(nlohmann::ordered_json& document) const {
  if (document.is_string()) {
    document = text(document.get<std::string>());
  } else if (document.is_array()) {
    for (auto& element : document) json(element);
  } else if (document.is_object()) {
    nlohmann::ordered_json redacted = nlohmann::ordered_json::object();
    for (auto it = document.begin(); it != document.end(); ++it) {
      json(it.value());
      redacted[text(it.key())] = std::move(it.value());
    }
    document = std::move(redacted);
  }
}

bool Redactor::file_contains_secret(const std::string& path) const {
  if (needles_.empty()) return false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool found = false;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
      for (const std::string& needle : needles_) {
        found = found || ::memmem(map, static_cast<size_t>(st.st_size), needle.data(), needle.size()) != nullptr;
      }
      ::munmap(map, static_cast<size_t>(st.st_size));
    }
  }
  ::close(fd);
  return found;
}

}  // namespace cublasspy::tools::bundle

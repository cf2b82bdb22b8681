// No credential in a bundle. The traces redact what they record (machine/process_info.h); what
// the bundle adds (report.md, the JSON report, the reproducers, doctor's output, the MANIFEST)
// passes through the same rules here: the user:password part of URLs, and the values of the
// credential-like variables (*TOKEN*, *KEY*, *SECRET*, *PASSWORD*, ...) of the environment
// `cublasspy bundle` runs in, in plain and in JSON-escaped form. A file copied as it is (a
// trace, a dump) is left out when it holds such a value (contains_secret).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cublasspy::tools::bundle {

class Redactor {
 public:
  // The secrets of `environment` ("NAME=value" entries, environ's shape, null-terminated).
  explicit Redactor(char** environment);
  // For tests: these exact values.
  explicit Redactor(std::vector<std::string> secrets);

  std::string text(std::string text) const;
  // Every string of the document, keys included, redacted in place.
  void json(nlohmann::ordered_json& document) const;
  // Whether the file at `path` holds one of the secrets as it is (false when unreadable).
  bool file_contains_secret(const std::string& path) const;

 private:
  void add_secret(const std::string& value);
  std::vector<std::string> needles_;  // each secret, and its JSON-escaped form when that differs
};

}  // namespace cublasspy::tools::bundle

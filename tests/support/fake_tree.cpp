#include "support/fake_tree.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace cublasspy::test {

namespace fs = std::filesystem;

FakeTree::FakeTree() {
  std::string templ = (fs::temp_directory_path() / "cbs-machine-XXXXXX").string();
  root = mkdtemp(templ.data());
}

FakeTree::~FakeTree() {
  std::error_code ec;
  fs::remove_all(root, ec);
}

FakeTree& FakeTree::file(const std::string& p, const std::string& text, mode_t mode) {
  fs::create_directories(fs::path(path(p)).parent_path());
  std::ofstream(path(p)) << text;
  ::chmod(path(p).c_str(), mode);
  return *this;
}

FakeTree& FakeTree::link(const std::string& p, const std::string& target) {
  fs::create_directories(fs::path(path(p)).parent_path());
  fs::create_symlink(target, path(p));
  return *this;
}

FakeTree& FakeTree::dir(const std::string& p) {
  fs::create_directories(path(p));
  return *this;
}

FakeTree& FakeTree::remove(const std::string& p) {
  fs::remove(path(p));
  return *this;
}

}  // namespace cublasspy::test

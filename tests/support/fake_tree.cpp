#include "support/fake_tree.h"

#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "process/child.h"

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

std::optional<std::string> as_user(uid_t uid, const std::vector<gid_t>& groups, const std::function<std::string()>& fn) {
  if (groups.empty()) return std::nullopt;
  process::Spawn spawn;
  spawn.child_function = [&] {
    if (setgroups(groups.size(), groups.data()) != 0 || setgid(groups.front()) != 0 || setuid(uid) != 0) _exit(2);
    return fn();
  };
  const process::Outcome ran = process::run(spawn);
  if (!ran.started || !ran.exited || ran.exit_code != 0) return std::nullopt;
  return ran.answer;
}

}  // namespace cublasspy::test

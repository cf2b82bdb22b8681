#include "support/fake_tree.h"

#include <grp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::optional<std::string> as_user(uid_t uid, const std::vector<gid_t>& groups, const std::function<std::string()>& fn) {
  int pipe_fd[2];
  if (groups.empty() || pipe(pipe_fd) != 0) return std::nullopt;
  pid_t pid = fork();
  if (pid == 0) {
    close(pipe_fd[0]);
    if (setgroups(groups.size(), groups.data()) != 0 || setgid(groups.front()) != 0 || setuid(uid) != 0) _exit(2);
    const std::string text = fn();
    (void)!write(pipe_fd[1], text.data(), text.size());
    _exit(0);
  }
  close(pipe_fd[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fd[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(pipe_fd[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return text;
}

}  // namespace cublasspy::test

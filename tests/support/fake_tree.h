// A fake machine's files (/proc, /dev, /etc, library directories) under a temporary root, for
// the tests of the machine evidence, its judge and `cublasspy doctor`. Removed with the object.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cublasspy::test {

class FakeTree {
 public:
  FakeTree();
  ~FakeTree();
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;

  // A regular file (its directories made), with this text and mode.
  FakeTree& file(const std::string& path, const std::string& text = "", mode_t mode = 0644);
  FakeTree& link(const std::string& path, const std::string& target);
  FakeTree& dir(const std::string& path);
  FakeTree& remove(const std::string& path);
  // `p` (absolute on the fake machine) as a path on this one.
  std::string path(const std::string& p) const { return root + p; }

  std::string root;
};

// What `fn` returns when run by another user: in a forked child that drops root to `uid` with
// `groups` (the first its group), since whether a node may be opened is the kernel's answer for
// the process that asks. The root of a tree `fn` reads must be traversable (0755). nullopt when
// the child could not drop root or did not finish.
std::optional<std::string> as_user(uid_t uid, const std::vector<gid_t>& groups, const std::function<std::string()>& fn);

}  // namespace cublasspy::test

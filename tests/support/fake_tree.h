// A fake machine's files (/proc, /dev, /etc, library directories) under a temporary root, for
// the tests of the machine evidence, its judge and `cublasspy doctor`. Removed with the object.
#pragma once

#include <sys/types.h>

#include <string>

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

}  // namespace cublasspy::test
